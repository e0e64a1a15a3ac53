#include "mpi_check.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>

namespace ep::tools {

namespace {
std::string& name_storage() {
  static std::string name = "ep-tool";
  return name;
}

int world_rank_or_minus_one() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = -1;
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
}  // namespace

void set_program_name(std::string name) { name_storage() = std::move(name); }
const std::string& program_name() { return name_storage(); }

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return fmt::format("error code {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

void abort_on_error(int code, std::string_view call, const char* file, int line) {
  abort_job(fmt::format("{} failed on world rank {}: {} ({}:{})", call, world_rank_or_minus_one(),
                        mpi_error_string(code), std::filesystem::path(file).filename().string(),
                        line));
}

void abort_job(std::string_view message) {
  fmt::print(stderr, "{}: {}\n", program_name(), message);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return, but the compiler cannot know.
}

}  // namespace ep::tools
