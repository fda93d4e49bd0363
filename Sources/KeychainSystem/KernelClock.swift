// SPDX-License-Identifier: MIT
//
// The kernel's clocks, read here and nowhere else: the boot clock in /proc's unit (clock
// ticks), which is how a process's start time is told from a later process with its pid, and
// the wall-clock moment the machine booted, which turns such a start time into a date.

#if canImport(Glibc)
  import Glibc
#endif

/// The kernel's clocks.
public enum KernelClock {
  /// Clock ticks per second, the unit of `/proc/PID/stat`'s start time (USER_HZ).
  public static let ticksPerSecond = UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))

  /// Clock ticks since boot now (CLOCK_BOOTTIME, which counts time asleep as /proc does).
  public static func ticksSinceBoot() -> UInt64 {
    let now = reading(CLOCK_BOOTTIME)
    return UInt64(now.tv_sec) * ticksPerSecond
      + UInt64(now.tv_nsec) * ticksPerSecond / 1_000_000_000
  }

  /// Seconds since 1970 at which the machine booted (the wall clock less the boot clock).
  public static func bootTime() -> Double {
    let now = reading(CLOCK_REALTIME)
    let sinceBoot = reading(CLOCK_BOOTTIME)
    return Double(now.tv_sec - sinceBoot.tv_sec) + Double(now.tv_nsec - sinceBoot.tv_nsec) / 1e9
  }

  /// Seconds since 1970 at which a process that started `ticks` after boot started.
  public static func date(ofTicksSinceBoot ticks: UInt64) -> Double {
    bootTime() + Double(ticks) / Double(ticksPerSecond)
  }

  private static func reading(_ clock: clockid_t) -> timespec {
    var time = timespec()
    clock_gettime(clock, &time)
    return time
  }
}
