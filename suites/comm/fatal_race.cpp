// An error that every endpoint of a process raises at the same moment, under
// the default (fatal) error handler: every rank passes the bad color -5 to
// Comm_split (--kind=split), or a root past the last rank to Bcast
// (--kind=bcast). One endpoint per process must report and end the job; the
// others must wait for it. fatal_race.sh launches this many times and checks
// the exit status and that each process printed its message once, whole.
// --kind=reference --of=split|bcast: rank 0 alone calls MPI_Abort with the
// class that kind raises, for the exit status an uncontested abort has under
// this launcher.
// Reaching the end of this body is the failure.
#include "comm_test.hpp"

void eptest::run(Context& t) {
  const std::string kind = t.params().get("kind", "split");
  if (kind == "reference") {
    const bool root = t.params().get("of", "split") == "bcast";
    if (t.rank() == 0) MPI_Abort(MPI_COMM_WORLD, root ? MPI_ERR_ROOT : MPI_ERR_ARG);
    t.barrier();  // the abort ends the job before anyone leaves
    t.fail("MPI_Abort returned");
    return;
  }
  if (kind == "bcast") {
    int buf[2] = {};
    api::Bcast(buf, 2, MPI_INT, t.size(), t.comm());
    t.fail("Bcast with an invalid root returned");
    return;
  }
  api::Comm part = api::COMM_NULL;
  api::Comm_split(t.comm(), -5, t.rank(), &part);
  t.fail("Comm_split with color -5 returned");
}
