#pragma once
// The seccomp filter of a sandbox: the table of denied system calls in seccomp_filter.cc,
// compiled by libseccomp once into a BPF program that each child loads.

#include <linux/filter.h>

#include <string>
#include <vector>

namespace toolhost::sandbox {

// The program for `network` (an allow-list entry's `network = true`); false and `error` when
// libseccomp fails.
bool build_seccomp_program(bool network, std::vector<sock_filter>& program, std::string& error);

}  // namespace toolhost::sandbox
