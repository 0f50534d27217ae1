#include "commands/render_ranks.h"

#include <cstring>
#include <stdexcept>

namespace mp {
namespace {

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_bytes(std::string& out, const void* data, std::size_t n) {
  put(out, static_cast<std::uint64_t>(n));
  out.append(static_cast<const char*>(data), n);
}

// Reads what put() wrote, refusing to read past the end.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  // A length-prefixed run of bytes into `out` (resized to hold them whole).
  template <class T>
  void get_bytes(std::vector<T>& out) {
    const auto n = get<std::uint64_t>();
    if (n % sizeof(T) != 0) throw std::runtime_error("MPI: a band's bytes are not whole values");
    out.resize(n / sizeof(T));
    if (n) std::memcpy(out.data(), take(n), n);
  }
  bool at_end() const { return at_ == bytes_.size(); }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - at_) throw std::runtime_error("MPI: a band's bytes end short");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_band(long long band, const EncodedBand& encoded) {
  std::string out;
  put(out, static_cast<std::int64_t>(band));
  put(out, static_cast<std::int32_t>(encoded.rows));
  put(out, static_cast<std::uint64_t>(encoded.blocks.size()));
  for (const PngBlock& b : encoded.blocks) {
    put(out, static_cast<std::int32_t>(b.rows));
    put(out, static_cast<std::uint8_t>(b.last));
    put(out, b.adler);
    put(out, b.filtered_bytes);
    put(out, b.crc);
    put_bytes(out, b.deflated.data(), b.deflated.size());
  }
  put_bytes(out, encoded.exr_n.data(), encoded.exr_n.size() * sizeof(std::uint32_t));
  put_bytes(out, encoded.exr_nf.data(), encoded.exr_nf.size() * sizeof(float));
  return out;
}

EncodedBand decode_band(const std::string& bytes, long long& band) {
  Reader in(bytes);
  EncodedBand e;
  band = in.get<std::int64_t>();
  e.rows = in.get<std::int32_t>();
  const auto blocks = in.get<std::uint64_t>();
  if (blocks > bytes.size()) throw std::runtime_error("MPI: a band's bytes end short");
  e.blocks.resize(blocks);
  for (PngBlock& b : e.blocks) {
    b.rows = in.get<std::int32_t>();
    b.last = in.get<std::uint8_t>() != 0;
    b.adler = in.get<std::uint32_t>();
    b.filtered_bytes = in.get<std::uint64_t>();
    b.crc = in.get<std::uint32_t>();
    in.get_bytes(b.deflated);
  }
  in.get_bytes(e.exr_n);
  in.get_bytes(e.exr_nf);
  if (!in.at_end()) throw std::runtime_error("MPI: a band's bytes run on past it");
  return e;
}

EncodedBand RankExchange::receive(long long band) {
  const MpiRanks::Message m = ranks_.receive(static_cast<int>(band % ranks_.size()), kTagBand);
  long long got = -1;
  EncodedBand e = decode_band(m.bytes, got);
  if (got != band)
    throw std::runtime_error("MPI: rank " + std::to_string(m.from) + " sent band " +
                             std::to_string(got) + " where " + std::to_string(band) + " was due");
  return e;
}

void RankExchange::send(long long band, EncodedBand&& encoded) {
  ranks_.send(0, kTagBand, encode_band(band, encoded));
}

std::vector<DeviceInfo> host_share(const std::vector<DeviceInfo>& host, const MpiRanks& ranks) {
  if (host.empty() || ranks.local_size() == 1) return host;
  const int n = static_cast<int>(host.size());
  if (ranks.local_size() >= n) return {host[static_cast<std::size_t>(ranks.local_rank() % n)]};
  std::vector<DeviceInfo> mine;
  for (int i = ranks.local_rank(); i < n; i += ranks.local_size())
    mine.push_back(host[static_cast<std::size_t>(i)]);
  return mine;
}

std::vector<int> frames_of_rank(const std::vector<int>& missing, int rank, int size) {
  std::vector<int> mine;
  for (std::size_t i = static_cast<std::size_t>(rank); i < missing.size();
       i += static_cast<std::size_t>(size))
    mine.push_back(missing[i]);
  return mine;
}

}  // namespace mp
