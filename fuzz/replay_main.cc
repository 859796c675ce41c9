// The fuzz targets without libFuzzer: `make test` links each with this main() in the sanitizer
// build (g++, ASan + UBSan) and runs it on its checked-in seeds, then on a fixed number of
// inputs mutated from them by a seeded generator, the same on every run. It catches what the
// seeds and their near neighbours still crash, with the invariants each target checks; finding
// new inputs is `make fuzz`'s job (clang-14, libFuzzer's coverage-guided search).
// usage: TARGET [--mutations=N] [--max-len=N] [--crash-dir=DIR] PATH... [--prefix=BYTE
//        --prefixed PATH...]
//   PATH: a file or a directory of files (seeds). --prefixed seeds get BYTE before them
//   (parse_fuzz's option byte, for fixtures that are plain chat text). An input that fails is
//   written to DIR (default: the working directory) before the sanitizer's report ends the run.
#include <sanitizer/common_interface_defs.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                                                size_t max_size, unsigned seed);

namespace {

using Bytes = std::vector<uint8_t>;

std::minstd_rand& generator() {
  static std::minstd_rand rng(20261202);
  return rng;
}

size_t pick(size_t bound) { return bound == 0 ? 0 : generator()() % bound; }

// One of libFuzzer's plain mutations: flip a bit, set a byte to a boundary value, insert or
// erase a run, duplicate a run elsewhere, or truncate.
size_t mutate_bytes(uint8_t* data, size_t size, size_t max_size) {
  Bytes bytes(data, data + size);
  static const uint8_t kSpecial[] = {0, 1, 0x7f, 0x80, 0xff, '\n', '"', '\\', '{', '<', '`'};
  switch (pick(6)) {
    case 0:
      if (!bytes.empty()) bytes[pick(bytes.size())] ^= static_cast<uint8_t>(1u << pick(8));
      break;
    case 1:
      if (!bytes.empty()) bytes[pick(bytes.size())] = kSpecial[pick(sizeof kSpecial)];
      break;
    case 2:
      bytes.insert(bytes.begin() + static_cast<long>(pick(bytes.size() + 1)), pick(16) + 1,
                   kSpecial[pick(sizeof kSpecial)]);
      break;
    case 3:
      if (!bytes.empty()) {
        size_t at = pick(bytes.size());
        bytes.erase(bytes.begin() + static_cast<long>(at),
                    bytes.begin() + static_cast<long>(std::min(bytes.size(), at + pick(16) + 1)));
      }
      break;
    case 4:
      if (!bytes.empty()) {
        size_t from = pick(bytes.size());
        size_t length = std::min(bytes.size() - from, pick(64) + 1);
        Bytes run(bytes.begin() + static_cast<long>(from),
                  bytes.begin() + static_cast<long>(from + length));
        bytes.insert(bytes.begin() + static_cast<long>(pick(bytes.size() + 1)), run.begin(),
                     run.end());
      }
      break;
    default:
      bytes.resize(pick(bytes.size() + 1));
  }
  if (bytes.size() > max_size) bytes.resize(max_size);
  std::copy(bytes.begin(), bytes.end(), data);
  return bytes.size();
}

Bytes mutated(const Bytes& seed, size_t max_len) {
  Bytes buffer(std::max(max_len, seed.size()));
  std::copy(seed.begin(), seed.end(), buffer.begin());
  size_t size = seed.size();
  for (size_t steps = pick(4) + 1; steps > 0; --steps) {
    unsigned seed_value = static_cast<unsigned>(generator()());
    size = LLVMFuzzerCustomMutator ? LLVMFuzzerCustomMutator(buffer.data(), size, max_len, seed_value)
                                   : mutate_bytes(buffer.data(), size, max_len);
  }
  buffer.resize(size);
  return buffer;
}

std::string crash_path;
const Bytes* running = nullptr;

// Called by the sanitizer runtime before it exits: the input that failed, kept for replaying.
void keep_failing_input() {
  if (running == nullptr) return;
  std::ofstream out(crash_path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(running->data()),
            static_cast<std::streamsize>(running->size()));
  std::fprintf(stderr, "fuzz replay: the failing input is in %s\n", crash_path.c_str());
}

void run(const Bytes& input) {
  running = &input;
  LLVMFuzzerTestOneInput(input.data(), input.size());
  running = nullptr;
}

bool read_file(const std::filesystem::path& path, int prefix, std::vector<Bytes>& seeds) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  Bytes bytes;
  if (prefix >= 0) bytes.push_back(static_cast<uint8_t>(prefix));
  const std::string body = text.str();
  bytes.insert(bytes.end(), body.begin(), body.end());
  seeds.push_back(std::move(bytes));
  return true;
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  return mutate_bytes(data, size, max_size);
}

int main(int argc, char** argv) {
  long mutations = 1000;
  size_t max_len = 4096;
  int prefix = -1;
  std::string crash_dir = ".";
  std::vector<std::string> paths, prefixed;
  CLI::App app{"Replays a fuzz target's seeds and inputs mutated from them"};
  app.add_option("--mutations", mutations, "inputs mutated from the seeds");
  app.add_option("--max-len", max_len, "the longest mutated input");
  app.add_option("--prefix", prefix, "the byte put before each seed of --prefixed");
  app.add_option("--prefixed", prefixed, "seeds read with --prefix before them");
  app.add_option("--crash-dir", crash_dir, "where a failing input is written");
  app.add_option("paths", paths, "seed files, or directories of them");
  CLI11_PARSE(app, argc, argv);
  std::vector<Bytes> seeds;
  // The same order on every run, so the same mutations.
  for (const auto& [list, byte] : {std::pair{&paths, -1}, std::pair{&prefixed, prefix}}) {
    for (const std::string& arg : *list) {
      if (std::filesystem::is_directory(arg)) {
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(arg)) files.push_back(entry);
        std::sort(files.begin(), files.end());
        for (const auto& file : files) read_file(file, byte, seeds);
      } else if (!read_file(arg, byte, seeds)) {
        std::fprintf(stderr, "fuzz replay: cannot read %s\n", arg.c_str());
        return 2;
      }
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "fuzz replay: no seeds given\n");
    return 2;
  }
  crash_path = crash_dir + "/replay-failure";
  __sanitizer_set_death_callback(keep_failing_input);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (const Bytes& seed : seeds) run(seed);
  for (long n = 0; n < mutations; ++n) run(mutated(seeds[pick(seeds.size())], max_len));
  std::printf("fuzz replay: %zu seeds and %ld mutated inputs, no failure\n", seeds.size(),
              mutations);
  return 0;
}
