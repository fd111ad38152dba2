#include "cli/run_progress.h"

#include <algorithm>
#include <cmath>

namespace kb::cli {

namespace {
constexpr double kRedrawS = 0.1;  // a terminal line at most ten times a second
constexpr int kBarWidth = 24;
}  // namespace

RunProgress::RunProgress(size_t total, bool tty, bool enabled, double plain_every_s)
    : total_(total), tty_(tty), enabled_(enabled), plain_every_s_(plain_every_s),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void RunProgress::add(bool pass) {
    ++done_;
    if (pass) ++pass_;
}

double RunProgress::elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double RunProgress::rate() const {
    double s = elapsed_s();
    return done_ && s > 0 ? double(done_) / s : 0.0;
}

std::string RunProgress::clock(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "--:--";
    long s = long(seconds + 0.5);
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
    return buf;
}

std::string RunProgress::line() const {
    double r = rate();
    double eta = r > 0 ? double(total_ - std::min(done_, total_)) / r : NAN;
    char buf[256];
    std::string bar;
    if (tty_) {
        int filled = total_ ? int(double(kBarWidth) * double(done_) / double(total_)) : kBarWidth;
        bar = "[" + std::string(size_t(filled), '#') + std::string(size_t(kBarWidth - filled), '.') + "] ";
    }
    std::snprintf(buf, sizeof buf, "%zu/%zu  %.1f/s  ETA %s  elapsed %s  pass %zu", done_, total_, r,
                  clock(eta).c_str(), clock(elapsed_s()).c_str(), pass_);
    return bar + buf;
}

void RunProgress::tick(bool force) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    double since = std::chrono::duration<double>(now - last_draw_).count();
    if (!force && since < (tty_ ? kRedrawS : plain_every_s_)) return;
    last_draw_ = now;
    if (tty_) std::fprintf(stderr, "\r%s\033[K", line().c_str());
    else std::fprintf(stderr, "kbench run: %s\n", line().c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void RunProgress::finish() {
    if (!enabled_) return;
    tick(true);
    if (tty_ && drawn_) std::fprintf(stderr, "\n");
}

}  // namespace kb::cli
