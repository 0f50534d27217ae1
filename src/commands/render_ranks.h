// render over MPI's ranks: a still's bands shared round the ranks, each encoded where it was
// rendered and sent to rank 0, which writes the one file; a sequence's frames shared round the
// ranks, each written whole by its rank, which tells rank 0 so that frames.json lists it.
#pragma once

#include <string>
#include <vector>

#include "commands/band_pipeline.h"
#include "commands/mpi_ranks.h"
#include "gpu_renderer.h"

namespace mp {

// What a rank sends rank 0: a still's band, a frame written, its part of the run at the end.
inline constexpr int kTagBand = 1;
inline constexpr int kTagFrame = 2;
inline constexpr int kTagSummary = 3;

// A band as bytes, for a rank of the same machine architecture (the fields as they are in
// memory), and back: std::runtime_error for bytes that are not one.
std::string encode_band(long long band, const EncodedBand& encoded);
EncodedBand decode_band(const std::string& bytes, long long& band);

// Band b of a still is rank b % size's; rank 0 writes them all, in order.
class RankExchange final : public BandExchange {
 public:
  explicit RankExchange(const MpiRanks& ranks) : ranks_(ranks) {}
  bool renders(long long band) const override { return band % ranks_.size() == ranks_.rank(); }
  bool writes() const override { return ranks_.root(); }
  EncodedBand receive(long long band) override;
  void send(long long band, EncodedBand&& encoded) override;

 private:
  const MpiRanks& ranks_;
};

// The GPUs of this rank where several ranks share a host and --devices did not say: the host's
// GPUs dealt round its ranks (one each where there are as many), a GPU shared where there are
// more ranks than GPUs.
std::vector<DeviceInfo> host_share(const std::vector<DeviceInfo>& host, const MpiRanks& ranks);

// The frames of `missing` that rank `rank` of `size` renders: every size-th, from its place.
std::vector<int> frames_of_rank(const std::vector<int>& missing, int rank, int size);

}  // namespace mp
