// Linked into build/toolhost when it links libstdc++ statically but libc stays shared
// (CMakeLists.txt, toolhost_link_static): floor() and fmod() were the only libm functions it
// called (custom tools' numbers, pugixml's XPath `mod`), and loading libm.so for them kept
// 0.3 MB of its pages resident in an idle host (SPEC 9, P7). The link wraps both references to
// these exact versions, which use only arithmetic the compiler emits inline.
#include <cmath>
#include <cstdint>

extern "C" double __wrap_floor(double x) {
  // From 2^52 on every double is whole (and NaN and the infinities are their own floor).
  if (!(std::fabs(x) < 4503599627370496.0)) return x;
  const double toward_zero = static_cast<double>(static_cast<int64_t>(x));
  return std::copysign(toward_zero > x ? toward_zero - 1 : toward_zero, x);
}

// Binary long division: every subtraction is exact (d <= r < 2d), so the remainder is exact,
// as the C standard requires of fmod.
extern "C" double __wrap_fmod(double x, double y) {
  if (std::isnan(x) || std::isnan(y) || std::isinf(x) || y == 0) return NAN;
  double rest = std::fabs(x);
  const double divisor = std::fabs(y);
  if (rest < divisor) return x;
  double step = divisor;
  while (step + step <= rest) step += step;
  for (;;) {
    if (rest >= step) rest -= step;
    if (step == divisor) break;
    step /= 2;
  }
  return std::copysign(rest, x);
}
