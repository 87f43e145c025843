// RunObservationWriter when memory runs out: a write that throws std::bad_alloc part way leaves the
// writer exact for every later observation. It keeps each value's text between calls, so a value
// changed without its text being written again would go out stale in the next observation with that
// value. A binary of its own: it replaces the global operator new to make the Nth allocation fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "messages.hpp"
#include "whole_observation.hpp"

namespace {
// While positive, counts allocations down; the one that brings it to zero throws. Only this test's
// thread arms it, around one write.
long allocations_until_failure = 0;
}  // namespace

// The replacements pair malloc with free (and so do the sanitizers' views of them); gcc, seeing free
// inlined where an operator new's pointer is released, warns of a mismatch that is not one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void *operator new(std::size_t n) {
    if (allocations_until_failure > 0 && --allocations_until_failure == 0) throw std::bad_alloc();
    if (void *p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

using actionhost::bash::RunMetadata;
using actionhost::bash::RunObservationWriter;
using actionhost::bash::testing::whole_observation;

TEST(ObservationWriterOutOfMemory, EveryLaterObservationIsExact) {
    RunMetadata before;
    before.exit_code = 0;
    before.pid = 100;
    before.username = "root";
    before.hostname = "h";
    before.working_dir = "/workspace";
    before.py_interpreter_path = "/usr/bin/python";
    before.suffix = "\n[The command completed with exit code 0.]";
    RunMetadata after = before;  // every kind of value changes: int, bool, string, null
    after.exit_code = 1;
    after.pid = 200;
    after.working_dir = "/tmp";
    after.py_interpreter_path = std::nullopt;
    after.suffix = "\n[The command completed with exit code 1.]";
    after.stderr_text = "e";
    int failures = 0;
    for (long n = 1; n < 1000; ++n) {
        RunObservationWriter writer;
        ASSERT_EQ(writer.write("true", "", before, false), whole_observation("true", "", before, false));
        allocations_until_failure = n;
        bool threw = false;
        try {
            writer.write("false", "x", after, true);
        } catch (const std::bad_alloc &) {
            threw = true;
        }
        allocations_until_failure = 0;
        if (!threw) break;  // the write needs fewer than n allocations: every point was tried
        ++failures;
        ASSERT_EQ(writer.write("false", "x", after, true), whole_observation("false", "x", after, true))
            << "after allocation " << n << " of the write failed";
        ASSERT_EQ(writer.write("true", "", before, false), whole_observation("true", "", before, false))
            << "after allocation " << n << " of the write failed";
    }
    EXPECT_GT(failures, 10);  // the write allocates, so failures were injected
}
