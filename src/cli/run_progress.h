// The progress display of `kbench run` (docs/batch.md, "kbench run"): on a
// terminal, one line redrawn in place on stderr (a bar, done/total, rate,
// ETA, pass count) at most ten times a second; elsewhere (a log file, CI),
// a plain line every few seconds, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace kb::cli {

class RunProgress {
public:
    // `total`: the candidates this run will write (skipped ones excluded).
    // `tty`: redraw in place; otherwise print plain lines every `plain_every_s`.
    RunProgress(size_t total, bool tty, bool enabled, double plain_every_s = 5.0);

    // One more result line written.
    void add(bool pass);
    // Redraws (or prints a plain line) when enough time has passed; `force`: now.
    void tick(bool force = false);
    // Ends the display: the last state, and a newline after a redrawn line.
    void finish();

    size_t done() const { return done_; }
    size_t passed() const { return pass_; }
    double elapsed_s() const;
    // Lines per second so far (0 before the first).
    double rate() const;

    // "0:42", "1:02:03"; "--:--" for an unknown duration.
    static std::string clock(double seconds);

private:
    std::string line() const;

    size_t total_, done_ = 0, pass_ = 0;
    bool tty_, enabled_;
    double plain_every_s_;
    std::chrono::steady_clock::time_point start_, last_draw_;
    bool drawn_ = false;
};

}  // namespace kb::cli
