// Where there is no clang (so no libFuzzer), a seeded random driver runs a fuzz target instead:
// inputs are the seed files mutated (bytes flipped, inserted, erased, dictionary tokens, pieces
// of other seeds), without coverage feedback. It takes libFuzzer's flags that scripts/test.sh
// uses: -max_total_time=S, -runs=N, -seed=N, -dict=FILE, -artifact_prefix=P, then folders.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// libFuzzer's dictionary lines: name="token" or "token"; \xNN and \\ escapes.
std::vector<std::string> read_dict(const std::filesystem::path& p) {
  std::vector<std::string> tokens;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    const auto open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == close) continue;
    std::string t;
    for (auto i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 3 < close && line[i + 1] == 'x') {
        t += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else if (line[i] == '\\' && i + 1 < close) {
        t += line[++i];
      } else {
        t += line[i];
      }
    }
    tokens.push_back(t);
  }
  return tokens;
}

std::string mutate(std::string s, const std::vector<std::string>& seeds,
                   const std::vector<std::string>& dict, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) {
    return n ? std::uniform_int_distribution<std::size_t>(0, n - 1)(rng) : 0;
  };
  for (int k = 1 + static_cast<int>(pick(4)); k > 0; --k) {
    const std::size_t at = pick(s.size() + 1);
    switch (pick(6)) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1: s.insert(at, 1, static_cast<char>(pick(256))); break;
      case 2:
        if (at < s.size()) s.erase(at, 1 + pick(std::min<std::size_t>(8, s.size() - at)));
        break;
      case 3:
        if (!dict.empty()) s.insert(at, dict[pick(dict.size())]);
        break;
      case 4: {
        const std::string& o = seeds[pick(seeds.size())];
        const std::size_t from = pick(o.size() + 1);
        s.insert(at, o.substr(from, pick(o.size() - from + 1)));
        break;
      }
      default:
        if (!s.empty()) s[pick(s.size())] = "0123456789-.e,\"{}[]: \n"[pick(22)];
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  long long runs = -1;  // unset: run for `seconds`
  std::uint64_t seed = 1;
  std::string prefix;
  std::vector<std::string> seeds, dict;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) {
      return a.rfind(flag, 0) == 0 ? a.substr(std::strlen(flag)) : std::string();
    };
    if (!value("-max_total_time=").empty())
      seconds = std::stod(value("-max_total_time="));
    else if (!value("-runs=").empty())
      runs = std::stoll(value("-runs="));
    else if (!value("-seed=").empty())
      seed = std::stoull(value("-seed="));
    else if (!value("-dict=").empty())
      dict = read_dict(value("-dict="));
    else if (a.rfind("-artifact_prefix=", 0) == 0)
      prefix = value("-artifact_prefix=");
    else if (a[0] == '-')
      continue;  // other libFuzzer flags mean nothing here
    else if (std::filesystem::is_directory(a))
      for (const auto& e : std::filesystem::directory_iterator(a))
        seeds.push_back(read_file(e.path()));
    else
      seeds.push_back(read_file(a));
  }
  if (seeds.empty()) seeds.emplace_back();
  std::mt19937_64 rng(seed);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long long done = 0;
  for (const std::string& s : seeds) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    ++done;
  }
  // The input under test, kept in a file so that a crash (an abort or a sanitizer's report ends
  // the process) leaves it behind.
  const int keep = prefix.empty() ? -1 : open((prefix + "input").c_str(), O_WRONLY | O_CREAT, 0644);
  auto more = [&] { return runs >= 0 ? done < runs : std::chrono::steady_clock::now() < end; };
  while (more()) {
    const std::string input =
        mutate(seeds[std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng)], seeds,
               dict, rng);
    if (keep >= 0 && (ftruncate(keep, 0) != 0 || pwrite(keep, input.data(), input.size(), 0) < 0))
      std::perror("random driver: keeping the input");
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    ++done;
  }
  if (keep >= 0) {
    close(keep);
    std::remove((prefix + "input").c_str());
  }
  std::printf("random driver: %lld inputs, seed %llu, no crash\n", done,
              static_cast<unsigned long long>(seed));
  return 0;
}
