// Reading and parsing many files at once: `check` over a directory of small
// checkpoints or an index of many shards spends its time in check_safetensors
// per file, which touches nothing shared, so a few threads split the files.
// Everything after (the checkpoint analysis, the verdicts, the report) stays
// on the calling thread; the results land in slots indexed like the paths,
// so the output does not depend on the thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "src/io/check_jobs.hpp"
#include "spec/report.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec {

// The default: one per hardware thread, within the bound.
CheckJobs default_check_jobs();

// work(i, parser) for every i < paths.size(), on at most `jobs` threads: the
// calling thread is one of them, with `parser`; every other thread has its
// own, as a HeaderParser is one thread's state. `work` must touch only
// what belongs to its i (its own slot of a result vector). jobs 1, or a single
// path, runs on the calling thread alone, in order. A list holding a URL
// runs on kHttpParallelRequests threads whatever `jobs` says: each file
// opens its own connection, and the time is the server's round trips. An
// exception thrown by `work` (bad_alloc) stops the others after their current
// file and is rethrown here.
void for_each_file(const std::vector<std::string>& paths, CheckJobs jobs, HeaderParser& parser,
                   const std::function<void(std::size_t, HeaderParser&)>& work);

// work(item, parser) once for every item < the thread count (`jobs`), each on a
// thread of its own with a parser as for_each_file gives them; for work that
// hands itself out (src/parse/shard_feed.hpp). A thread
// that cannot start leaves its item to the others, in turn.
void for_each_worker(CheckJobs jobs, HeaderParser& parser,
                     const std::function<void(std::size_t, HeaderParser&)>& work);

// check_safetensors on every path (for_each_file); reports in path order.
// With `ready`, ready(i, report i) for every i in path order, one call at a
// time, as soon as reports 0..i are all made (src/io/in_order.hpp): on whichever
// thread made the last of them, while later files are still being read.
std::vector<FileReport> check_files(const std::vector<std::string>& paths, Profile profile, CheckJobs jobs,
                                    HeaderParser& parser,
                                    const std::function<void(std::size_t, const FileReport&)>& ready = {});

}  // namespace safespec
