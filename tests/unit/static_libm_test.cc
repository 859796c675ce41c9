// The floor() and fmod() that the plugin's binary links instead of libm's (src/static_libm.cc)
// answer as libm does, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

extern "C" double __wrap_floor(double x);
extern "C" double __wrap_fmod(double x, double y);

namespace {

uint64_t libm_test_bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

double libm_test_double(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// NaN matches any NaN; every other value must have the same bits (-0 is not 0).
bool same_as_libm(double expected, double actual) {
  if (std::isnan(expected)) return std::isnan(actual);
  return libm_test_bits(expected) == libm_test_bits(actual);
}

std::vector<double> libm_test_edges() {
  using limits = std::numeric_limits<double>;
  return {0.0,
          -0.0,
          0.5,
          -0.5,
          1.0,
          -1.0,
          1.5,
          -1.5,
          2.5,
          -2.5,
          3.0,
          7.0,
          1e-310,
          -1e-310,
          limits::min(),
          limits::denorm_min(),
          0x1p52 - 0.5,
          -0x1p52 + 0.5,
          0x1p52,
          0x1p53 + 2,
          -0x1p63,
          1e300,
          -1e300,
          limits::max(),
          -limits::max(),
          limits::infinity(),
          -limits::infinity(),
          limits::quiet_NaN()};
}

// Any bit pattern (all exponents, subnormals, NaNs), and plain numbers of nearby sizes.
std::vector<double> libm_test_randoms(std::mt19937_64& random, int count) {
  std::vector<double> values;
  std::uniform_real_distribution<double> plain(-1e6, 1e6);
  for (int i = 0; i < count; ++i) {
    values.push_back(libm_test_double(random()));
    values.push_back(plain(random));
  }
  return values;
}

}  // namespace

TEST(StaticLibm, FloorAnswersAsLibmDoes) {
  std::mt19937_64 random(27);
  std::vector<double> values = libm_test_edges();
  for (double v : libm_test_randoms(random, 20000)) values.push_back(v);
  for (double x : values) {
    EXPECT_TRUE(same_as_libm(std::floor(x), __wrap_floor(x))) << "floor(" << x << ")";
  }
}

TEST(StaticLibm, FmodAnswersAsLibmDoes) {
  std::mt19937_64 random(27);
  const std::vector<double> edges = libm_test_edges();
  for (double x : edges) {
    for (double y : edges) {
      EXPECT_TRUE(same_as_libm(std::fmod(x, y), __wrap_fmod(x, y)))
          << "fmod(" << x << ", " << y << ")";
    }
  }
  const std::vector<double> values = libm_test_randoms(random, 20000);
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    double x = values[i], y = values[i + 1];
    EXPECT_TRUE(same_as_libm(std::fmod(x, y), __wrap_fmod(x, y)))
        << "fmod(" << x << ", " << y << ")";
  }
}
