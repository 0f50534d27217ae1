// The processes of an MPI launch (Open MPI's mpirun, Slurm's srun) that render one sequence or
// one still together, as ranks; a single process (rank 0 of 1) where nothing launched it so, or
// where this build has no MPI.
#pragma once

#include <optional>
#include <string>

namespace mp {

class MpiRanks {
 public:
  struct Message {
    int from = 0, tag = 0;
    std::string bytes;
  };
  static constexpr int kAnyTag = -1;
  static constexpr int kAnyRank = -1;

  // Joins the launch where the environment names one (OMPI_COMM_WORLD_SIZE, PMIX_RANK,
  // PMI_RANK); throws ExitError(2) where one of several processes was launched but this build
  // has no MPI.
  MpiRanks();
  // Whether a launcher started this process as one of several (read before joining it).
  static bool launched();
  ~MpiRanks();  // leaves the launch (MPI_Finalize)
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // This rank's place among the ranks on its host, and how many share the host.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  std::string host() const;

  // Every rank calls it: rank 0's `text` comes back on every rank.
  std::string broadcast(const std::string& text) const;
  // `bytes` to rank `to` under `tag` (>= 0); returns once it may be reused.
  void send(int to, int tag, const std::string& bytes) const;
  // The next message from `from` (kAnyRank: any) under `tag` (kAnyTag: any), waited for.
  Message receive(int from, int tag) const;
  // The next message of any rank under `tag` (kAnyTag: any) where one has come; none otherwise.
  std::optional<Message> poll(int tag) const;
  // Ends every rank at once with `code`: a rank whose failure would leave others waiting for it.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool joined_ = false;
};

}  // namespace mp
