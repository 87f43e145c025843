// A scope in which this thread reads frames libzmq received, told to ThreadSanitizer; nothing in other builds.
//
// libzmq (Debian's, not instrumented) receives a frame on its I/O thread (recv() straight into its buffer)
// and hands it to the receiving thread through a lock-free queue and an atomic reference count, which TSan
// cannot see. TSan then takes every 8-byte word of a frame this thread reads as a race with the I/O
// thread's write. The libzmq suppression (tests/tsan-suppressions.txt) hides those reports, but TSan
// handles each before matching it, and searches every racy address it has kept so far: quadratic, so the
// 100 one-megabyte stream messages of a large cell kept the host's thread in TSan's bookkeeping for minutes
// (JupyterResilience.HundredMegabyteCellIsTruncatedInBoundedMemory timed out).
//
// Inside the scope TSan does not record this thread's memory accesses (AnnotateIgnoreReadsBegin ignores
// writes too): keep it to decoding the frames zmq handed over. What it makes is this thread's until it
// hands it on, which TSan sees as usual.
#pragma once

#include <actionhost/common/sanitizers.hpp>

#if AH_THREAD_SANITIZER
extern "C" void AnnotateIgnoreReadsBegin(const char *file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char *file, int line);
#endif

namespace actionhost::jupyter {

class ZmqFrameReads {
  public:
#if AH_THREAD_SANITIZER
    ZmqFrameReads() { AnnotateIgnoreReadsBegin(__FILE__, __LINE__); }
    ~ZmqFrameReads() { AnnotateIgnoreReadsEnd(__FILE__, __LINE__); }
#else
    ZmqFrameReads() {}  // user-provided, as above: a scope guard, which compilers do not call unused
#endif
    ZmqFrameReads(const ZmqFrameReads &) = delete;
    ZmqFrameReads &operator=(const ZmqFrameReads &) = delete;
};

}  // namespace actionhost::jupyter
