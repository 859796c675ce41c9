// Linked into build/toolhost only when it is a static executable (CMakeLists.txt,
// toolhost_link_static). A static glibc cannot load the NSS modules that getpwuid_r needs, and
// the linker warns about it on every build; libuv references it from uv_os_get_passwd, which
// toolhost never calls. The reference is wrapped to this function, which finds no user.
#include <pwd.h>

#include <cerrno>

extern "C" int __wrap_getpwuid_r(uid_t, passwd*, char*, size_t, passwd** result) {
  *result = nullptr;
  return ENOENT;
}
