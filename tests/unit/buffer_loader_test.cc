// BufferLoader: a buffer read in slices while it is edited ends up equal to the buffer.
#include "nvim/buffer_loader.h"

#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace toolhost::nvim {
namespace {

using Lines = std::vector<std::string>;

Lines numbered(int n, const std::string& prefix = "row ") {
  Lines lines;
  for (int i = 0; i < n; ++i) lines.push_back(prefix + std::to_string(i));
  return lines;
}

// Replaces rows [first, last) of `lines` with `with`, as a lines event says.
void splice(Lines& lines, size_t first, size_t last, const Lines& with) {
  lines.erase(lines.begin() + static_cast<long>(first), lines.begin() + static_cast<long>(last));
  lines.insert(lines.begin() + static_cast<long>(first), with.begin(), with.end());
}

TEST(BufferLoader, ReadsAQuietBufferSliceBySlice) {
  const Lines buffer = numbered(2500);
  BufferLoader loader(static_cast<int64_t>(buffer.size()));
  int slices = 0;
  while (auto slice = loader.next_slice(1000, 1 << 20)) {
    ++slices;
    ASSERT_TRUE(loader.on_slice(slice->first, slice->end,
                                Lines(buffer.begin() + slice->first,
                                      buffer.begin() + std::min<int64_t>(slice->end, 2500))));
  }
  EXPECT_EQ(slices, 3);
  ASSERT_TRUE(loader.complete());
  EXPECT_EQ(loader.take(), buffer);
}

TEST(BufferLoader, SlicesAfterTheFirstFollowTheByteBudget) {
  BufferLoader loader(10000);
  auto first = loader.next_slice(5000, 1000);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->end - first->first, 1000);  // nothing read yet: a thousand rows
  ASSERT_TRUE(loader.on_slice(0, 1000, Lines(1000, std::string(99, 'x'))));  // 100 bytes a row
  auto second = loader.next_slice(5000, 1000);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->first, 1000);
  EXPECT_EQ(second->end, 1010);
}

TEST(BufferLoader, AnEmptyBufferIsCompleteAtOnce) {
  BufferLoader loader(0);
  EXPECT_TRUE(loader.complete());
  EXPECT_FALSE(loader.next_slice(10, 10));
  EXPECT_EQ(loader.take(), Lines());
}

TEST(BufferLoader, AnEditAboveTheUnreadRowsShiftsThem) {
  // Rows 0-1 read; two lines inserted at row 1; the unread rows 2-3 are now rows 4-5.
  BufferLoader loader(4);
  ASSERT_TRUE(loader.on_slice(0, 2, {"a", "b"}));
  ASSERT_TRUE(loader.on_lines(1, 1, {"x", "y"}));
  auto slice = loader.next_slice(100, 1 << 20);
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice->first, 4);
  ASSERT_TRUE(loader.on_slice(slice->first, slice->end, {"c", "d"}));
  EXPECT_EQ(loader.take(), (Lines{"a", "x", "y", "b", "c", "d"}));
}

TEST(BufferLoader, AnEditOfUnreadRowsMakesThemKnown) {
  BufferLoader loader(3);
  ASSERT_TRUE(loader.on_lines(0, 2, {"new"}));  // rows 0-1 (unread) became one
  EXPECT_EQ(loader.unknown(), 1u);
  auto slice = loader.next_slice(100, 1 << 20);
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice->first, 1);
  ASSERT_TRUE(loader.on_slice(1, slice->end, {"last"}));
  EXPECT_EQ(loader.take(), (Lines{"new", "last"}));
}

TEST(BufferLoader, ASliceAnsweredAfterRowsWereDeletedCarriesFewerRows) {
  BufferLoader loader(5);
  auto slice = loader.next_slice(100, 1 << 20);  // rows 0-5 asked
  ASSERT_TRUE(loader.on_lines(3, 5, {}));        // then rows 3-4 deleted, before the answer
  ASSERT_TRUE(loader.on_slice(slice->first, slice->end, {"a", "b", "c"}));
  EXPECT_EQ(loader.take(), (Lines{"a", "b", "c"}));
}

TEST(BufferLoader, RowsThatDoNotFitAreRefused) {
  BufferLoader loader(3);
  EXPECT_FALSE(loader.on_lines(2, 5, {}));               // past the end
  EXPECT_FALSE(loader.on_lines(2, 1, {}));               // backwards
  EXPECT_FALSE(loader.on_slice(0, 3, {"a", "b"}));       // the mirror has three rows there
  EXPECT_FALSE(loader.on_slice(0, 2, {"a", "b", "c"}));  // more than asked
  EXPECT_TRUE(loader.on_slice(2, 9, {"c"}));
  EXPECT_TRUE(loader.on_slice(3, 9, {}));  // at the end: Neovim clamps to nothing
  EXPECT_EQ(loader.unknown(), 2u);
}

// Neovim and the host on one channel: Neovim runs edits and the host's requests in some order,
// and sends events and answers in that order; the host handles them in that order, sending its
// next request at once. Edits go on before, during and after the reading.
class Race {
 public:
  explicit Race(unsigned seed) : rng_(seed), buffer_(numbered(pick(0, 3000))) {}

  void run() {
    pending_requests_.push_back(Count{});  // sent right behind the attach
    for (int step = 0; step < 20000 && !(done_ && edits_ > 300); ++step) {
      switch (pick(0, 2)) {
        case 0: edit(); break;
        case 1: neovim_answers(); break;
        case 2: host_reads(); break;
      }
    }
    // The user stops; everything in flight is delivered (a refused answer ends the reading).
    while (!done_ && !::testing::Test::HasFatalFailure()) {
      neovim_answers();
      host_reads();
    }
    while (!channel_.empty() && !::testing::Test::HasFatalFailure()) host_reads();
    EXPECT_EQ(mirror_, buffer_);
  }

 private:
  struct Count {};
  struct GetLines {
    int64_t first, end;
  };
  struct Event {
    int64_t first, last;
    Lines lines;
  };
  struct CountAnswer {
    int64_t count;
  };
  struct SliceAnswer {
    int64_t first, end;
    Lines lines;
  };
  using Request = std::variant<Count, GetLines>;
  using Message = std::variant<Event, CountAnswer, SliceAnswer>;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  void edit() {
    ++edits_;
    const int size = static_cast<int>(buffer_.size());
    int first = pick(0, size);
    int last = std::min(size, first + pick(0, 3) * (pick(0, 9) == 0 ? 100 : 1));
    Lines with;
    for (int n = pick(0, 4) * (pick(0, 9) == 0 ? 50 : 1); n > 0; --n) {
      with.push_back("edit " + std::to_string(edits_) + "." + std::to_string(n));
    }
    splice(buffer_, first, last, with);
    channel_.push_back(Event{first, last, with});
  }

  void neovim_answers() {
    if (pending_requests_.empty()) return;
    Request request = pending_requests_.front();
    pending_requests_.pop_front();
    const auto size = static_cast<int64_t>(buffer_.size());
    if (std::holds_alternative<Count>(request)) return channel_.push_back(CountAnswer{size});
    const GetLines& get = std::get<GetLines>(request);
    const int64_t a = std::min(get.first, size), b = std::min(get.end, size);
    channel_.push_back(SliceAnswer{
        get.first, get.end, a < b ? Lines(buffer_.begin() + a, buffer_.begin() + b) : Lines()});
  }

  void host_reads() {
    if (channel_.empty()) return;
    Message message = std::move(channel_.front());
    channel_.pop_front();
    if (auto* event = std::get_if<Event>(&message)) {
      if (done_) return splice(mirror_, event->first, event->last, event->lines);
      if (loader_) {
        ASSERT_TRUE(loader_->on_lines(event->first, event->last, event->lines));
      }
      return;  // before the count: dropped
    }
    if (auto* count = std::get_if<CountAnswer>(&message)) {
      loader_.emplace(count->count);
    } else {
      auto& slice = std::get<SliceAnswer>(message);
      ASSERT_TRUE(loader_->on_slice(slice.first, slice.end, std::move(slice.lines)));
    }
    if (auto next = loader_->next_slice(pick(1, 400), 4096)) {
      pending_requests_.push_back(GetLines{next->first, next->end});
    } else {
      mirror_ = loader_->take();
      done_ = true;
    }
  }

  std::mt19937 rng_;
  Lines buffer_;  // Neovim's
  std::deque<Request> pending_requests_;
  std::deque<Message> channel_;  // Neovim -> host
  std::optional<BufferLoader> loader_;
  Lines mirror_;  // the host's, once read
  bool done_ = false;
  int edits_ = 0;
};

TEST(BufferLoader, EditsRacingTheReadingLeaveTheMirrorEqualToTheBuffer) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Race(seed).run();
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace toolhost::nvim
