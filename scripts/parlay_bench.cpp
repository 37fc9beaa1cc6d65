// ParlayLib's side of the "Algorithms beyond rayon" table (scripts/parlay_bench.sh builds it
// against a fetched ParlayLib; none of ParlayLib's code is kept in this repository).
//
// The inputs are those of `cargo bench --bench algos -- --table`: 10M u64 from xorshift64*
// with the same seeds, so both tables time the same data. Each row is the median of 5 runs,
// in milliseconds, on all of ParlayLib's workers (PARLAY_NUM_THREADS to change).

#include <parlay/internal/group_by.h>
#include <parlay/primitives.h>
#include <parlay/random.h>
#include <parlay/sequence.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

// xorshift64*, as benches/algos.rs.
struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dULL;
  }
};

// ALGOS_BENCH_N (default 10M) shrinks the inputs for a quick check that everything runs.
const size_t N = std::getenv("ALGOS_BENCH_N") ? std::strtoull(std::getenv("ALGOS_BENCH_N"), nullptr, 10)
                                             : 10'000'000;

std::vector<uint64_t> permutation() {
  std::vector<uint64_t> v(N);
  for (size_t i = 0; i < N; i++) v[i] = i;
  Rng rng{0x9e3779b97f4a7c15ULL};
  for (size_t i = N - 1; i > 0; i--) std::swap(v[i], v[rng.next() % (i + 1)]);
  return v;
}

std::vector<uint64_t> modulo(uint64_t m, uint64_t seed) {
  std::vector<uint64_t> v(N);
  Rng rng{seed};
  for (auto& x : v) x = rng.next() % m;
  return v;
}

// Zipf over 10^6 ranks with exponent 1, by inverse CDF (the same doubles as the Rust side).
std::vector<uint64_t> zipf() {
  const size_t ranks = 1'000'000;
  std::vector<double> cdf(ranks);
  double h = 0;
  for (size_t r = 0; r < ranks; r++) {
    h += 1.0 / double(r + 1);
    cdf[r] = h;
  }
  std::vector<uint64_t> v(N);
  Rng rng{777};
  for (auto& x : v) {
    double u = double(rng.next() >> 11) / 9007199254740992.0 * h;
    x = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
  }
  return v;
}

// Median of 5 timed runs of `run` (after one untimed), each on a fresh `setup()`.
template <typename Setup, typename Run>
double time_ms(Setup setup, Run run) {
  std::vector<double> ms;
  for (int i = 0; i < 6; i++) {
    auto input = setup();
    auto start = std::chrono::steady_clock::now();
    run(input);
    auto end = std::chrono::steady_clock::now();
    if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void row(const char* name, double ms) { std::printf("%-32s %10.2f\n", name, ms); }

}  // namespace

int main() {
  auto perm = parlay::to_sequence(permutation());
  auto k1000 = parlay::to_sequence(modulo(1000, 1));
  auto k1e7 = parlay::to_sequence(modulo(10'000'000, 2));
  auto zipfs = parlay::to_sequence(zipf());
  auto pairs = [](const parlay::sequence<uint64_t>& keys) {
    return parlay::map(keys, [](uint64_t k) { return std::pair<uint64_t, uint64_t>(k, 1); });
  };
  auto p1000 = pairs(k1000), p1e7 = pairs(k1e7), pzipf = pairs(zipfs);
  auto kv1000 = parlay::map(k1000, [](uint64_t k) { return std::pair<uint64_t, uint64_t>(k, k); });
  auto bytes = parlay::map(perm, [](uint64_t x) { return uint64_t(x & 255); });
  size_t sink = 0;
  auto keep = [&](const auto& s) { sink += s.size(); };
  auto same = [](const auto& s) { return [&s] { return s; }; };
  auto none = [] { return 0; };

  std::printf("%-32s %10s\n", "parlaylib (ms)", "median");
  row("counts/1000", time_ms(none, [&](int) { keep(parlay::histogram_by_key(k1000)); }));
  row("counts/6.3M", time_ms(none, [&](int) { keep(parlay::histogram_by_key(k1e7)); }));
  row("counts/zipf", time_ms(none, [&](int) { keep(parlay::histogram_by_key(zipfs)); }));
  row("grouping_sum/1000", time_ms(none, [&](int) { keep(parlay::reduce_by_key(p1000)); }));
  row("grouping_sum/6.3M", time_ms(none, [&](int) { keep(parlay::reduce_by_key(p1e7)); }));
  row("grouping_sum/zipf", time_ms(none, [&](int) { keep(parlay::reduce_by_key(pzipf)); }));
  row("group_map/1000", time_ms(none, [&](int) { keep(parlay::group_by_key(kv1000)); }));
  row("unique/6.3M", time_ms(none, [&](int) { keep(parlay::remove_duplicates(k1e7)); }));
  row("histogram/256", time_ms(none, [&](int) { keep(parlay::histogram_by_index(bytes, uint64_t(256))); }));
  row("select_nth/median", time_ms(none, [&](int) { sink += *parlay::kth_smallest(perm, N / 2); }));
  row("shuffle", time_ms(none, [&](int) { keep(parlay::random_shuffle(perm, parlay::random(3))); }));
  auto sorted = parlay::sort(perm);
  row("is_sorted", time_ms(none, [&](int) { sink += parlay::is_sorted(sorted); }));
  row("filter_even", time_ms(none, [&](int) {
        keep(parlay::filter(k1e7, [](uint64_t x) { return x % 2 == 0; }));
      }));
  row("integer_sort", time_ms(same(k1e7), [&](auto& s) { parlay::integer_sort_inplace(s); keep(s); }));
  row("sort", time_ms(same(k1e7), [&](auto& s) { parlay::sort_inplace(s); keep(s); }));
  row("scan", time_ms(same(k1e7), [&](auto& s) { sink += parlay::scan_inplace(s); }));
  row("reduce", time_ms(none, [&](int) { sink += parlay::reduce(k1e7); }));
  std::fprintf(stderr, "(checksum %zu)\n", sink);
}
