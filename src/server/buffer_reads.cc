#include "server/buffer_reads.h"

#include "base/log.h"

namespace toolhost::server {
namespace {

// A mirror that does not fit twice in a row is not a race but a bug: the reading stops.
constexpr int kMaxRestarts = 3;

}  // namespace

BufferReads::BufferReads(nvim::Api& api, Loaded loaded, Failed failed)
    : api_(api), loaded_(std::move(loaded)), failed_(std::move(failed)) {}

BufferReads::Reading* BufferReads::current(int64_t buf, uint64_t id) {
  auto it = reads_.find(buf);
  return it != reads_.end() && it->second.id == id ? &it->second : nullptr;
}

void BufferReads::start(int64_t buf) {
  Reading& reading = reads_[buf];
  reading = Reading{};
  reading.id = next_id_++;
  const uint64_t id = reading.id;
  api_.buf_attach(buf, [this, buf, id](const std::string& error, bool attached) {
    if (!current(buf, id) || (error.empty() && attached)) return;
    fail(buf, error.empty() ? "Neovim refused" : error);
  });
  // Sent right behind the attach: its answer is the length of the buffer that the events
  // after it change.
  count(buf, reading);
}

void BufferReads::count(int64_t buf, Reading& reading) {
  reading.loader.reset();
  const uint64_t id = reading.id;
  api_.buf_line_count(buf, [this, buf, id](const std::string& error, int64_t lines) {
    Reading* reading = current(buf, id);
    if (!reading) return;
    if (!error.empty() || lines < 0) return fail(buf, error.empty() ? "no line count" : error);
    reading->loader.emplace(lines);
    next(buf, *reading);
  });
}

void BufferReads::next(int64_t buf, Reading& reading) {
  std::optional<nvim::BufferLoader::Slice> slice =
      reading.loader->next_slice(kSliceRows, kSliceBytes);
  if (!slice) {
    std::vector<std::string> lines = reading.loader->take();
    reads_.erase(buf);
    return loaded_(buf, std::move(lines));
  }
  const uint64_t id = reading.id;
  api_.buf_get_lines(
      buf, slice->first, slice->end,
      [this, buf, id, slice = *slice](const std::string& error, std::vector<std::string> lines) {
        Reading* reading = current(buf, id);
        if (!reading) return;
        if (!error.empty()) return fail(buf, error);
        if (!reading->loader->on_slice(slice.first, slice.end, std::move(lines))) {
          return restart(buf, *reading, "a slice");
        }
        next(buf, *reading);
      });
}

bool BufferReads::on_lines(nvim::LinesEvent& event) {
  auto it = reads_.find(event.buf);
  if (it == reads_.end()) return false;
  Reading& reading = it->second;
  if (reading.loader &&
      !reading.loader->on_lines(event.first, event.last, std::move(event.lines))) {
    restart(event.buf, reading, "a lines event");
  }
  return true;
}

void BufferReads::restart(int64_t buf, Reading& reading, const char* why) {
  if (++reading.restarts > kMaxRestarts) {
    return fail(buf, std::string(why) + " did not fit the rows read so far");
  }
  log::warn("reading buffer " + std::to_string(buf) + " again: " + why +
            " did not fit the rows read so far");
  reading.id = next_id_++;  // the slice under way is dropped
  count(buf, reading);
}

void BufferReads::fail(int64_t buf, const std::string& error) {
  reads_.erase(buf);
  failed_(buf, error);
}

}  // namespace toolhost::server
