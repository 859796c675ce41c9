#pragma once
// Which host process wrote a history line ({"pid": …, "start": …}), and whether it still runs.
//
// A host is alive while a process with its pid exists and started at the same time (field 22
// of /proc/PID/stat, in clock ticks since boot): a reused pid names a process with another
// start time, and a process keeps its start time for life, so the pair names this one host
// and never a stranger that got its pid. It is what every history line has always carried,
// so the lines of older hosts are judged the same way, and it needs no file per host to
// create and clean up (a lock file held with flock would also cross pid namespaces, which the
// pid cannot: hosts in separate containers sharing one state dir would see each other dead).

#include <nlohmann/json.hpp>

namespace toolhost::jobs {

// Process `pid` as history lines name their writer ({"pid", "start"}; start 0 when unknown).
nlohmann::json host_id(int pid);
// This process.
nlohmann::json this_host();
// Now, in the unit of a process's start time (clock ticks since boot, as /proc/PID/stat counts
// it): a child forked between two readings started at a tick between them.
uint64_t boot_ticks();
// Field 22 of /proc/PID/stat: the start time in clock ticks since boot. 0 when unknown.
uint64_t process_start_time(int pid);
// True while the host named by `host` runs (when its start time cannot be read: while its
// pid exists). False for anything that is not such an object.
bool host_alive(const nlohmann::json& host);

}  // namespace toolhost::jobs
