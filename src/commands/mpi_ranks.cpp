#include "commands/mpi_ranks.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "commands/commands.h"

#ifdef MP_HAVE_MPI
#include <mpi.h>
#endif

namespace mp {
namespace {

// The launcher's count of processes where one started this one (at least 1 where it does not
// say): Open MPI's mpirun, PMI (Slurm's srun --mpi=pmi2, MPICH's) or PMIx (srun --mpi=pmix);
// 0 where none did. Slurm's own variables are no sign: a batch script has them too.
int launched_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  for (const char* name : {"PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name)) return 1;
  return 0;
}

}  // namespace

bool MpiRanks::launched() {
  return launched_processes() > 1;
}

std::string MpiRanks::host() const {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

#ifdef MP_HAVE_MPI

namespace {

int checked_size(const std::string& bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error("MPI: a message of " + std::to_string(bytes.size()) +
                             " bytes is over MPI's 2 GiB");
  return static_cast<int>(bytes.size());
}

MpiRanks::Message received(const MPI_Status& probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_BYTE, &count);
  MpiRanks::Message m;
  m.from = probed.MPI_SOURCE;
  m.tag = probed.MPI_TAG;
  m.bytes.resize(static_cast<std::size_t>(count));
  MPI_Recv(m.bytes.data(), count, MPI_BYTE, m.from, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

}  // namespace

MpiRanks::MpiRanks() {
  // Not under a launcher: one process, without MPI's start-up.
  if (launched_processes() == 0) return;
  int provided = 0;
  // Only the thread that writes (the calling one) talks to MPI.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  joined_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
}

MpiRanks::~MpiRanks() {
  if (joined_) MPI_Finalize();
}

std::string MpiRanks::broadcast(const std::string& text) const {
  if (size_ == 1) return text;
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = root() ? text : std::string(n, '\0');
  MPI_Bcast(out.data(), checked_size(out), MPI_BYTE, 0, MPI_COMM_WORLD);
  return out;
}

void MpiRanks::send(int to, int tag, const std::string& bytes) const {
  MPI_Send(bytes.data(), checked_size(bytes), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

MpiRanks::Message MpiRanks::receive(int from, int tag) const {
  MPI_Status status;
  MPI_Probe(from == kAnyRank ? MPI_ANY_SOURCE : from, tag == kAnyTag ? MPI_ANY_TAG : tag,
            MPI_COMM_WORLD, &status);
  return received(status);
}

std::optional<MpiRanks::Message> MpiRanks::poll(int tag) const {
  int waiting = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, tag == kAnyTag ? MPI_ANY_TAG : tag, MPI_COMM_WORLD, &waiting, &status);
  if (!waiting) return std::nullopt;
  return received(status);
}

void MpiRanks::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

#else  // no MPI in this build: one process

MpiRanks::MpiRanks() {
  if (const int n = launched_processes(); n > 1)
    throw ExitError(2, "render: started as one of " + std::to_string(n) +
                           " processes (mpirun, srun), but this mandelpipe was built without "
                           "MPI (Debian's libopenmpi-dev): run it alone, or build it with MPI");
}

MpiRanks::~MpiRanks() = default;

std::string MpiRanks::broadcast(const std::string& text) const {
  return text;
}

void MpiRanks::send(int, int, const std::string&) const {
  throw std::logic_error("MPI: no other rank to send to");
}

MpiRanks::Message MpiRanks::receive(int, int) const {
  throw std::logic_error("MPI: no other rank to receive from");
}

std::optional<MpiRanks::Message> MpiRanks::poll(int) const {
  return std::nullopt;
}

void MpiRanks::abort(int code) const {
  std::_Exit(code);
}

#endif

}  // namespace mp
