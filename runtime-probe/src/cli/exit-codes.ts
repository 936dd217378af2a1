// The CLI's exit codes, one table for every command (printed by `--help`, listed in the README).
// Scripts branch on them, so a code keeps its meaning once published.

export const EXIT = {
  /** Done as asked (including Ctrl+C or --duration ending a tail/record/check); `check` found nothing that fails. */
  ok: 0,
  /** Findings: `check` found warnings that `--fail-on` selects. */
  findings: 1,
  /** Usage error: unknown command or option, bad value, missing argument. Nothing was attempted. */
  usage: 2,
  /** The app was not found, the connection failed or was refused, a trace could not be read, or the output file could not be created. */
  unreachable: 3,
  /** The app ended (or stopped its probe) while attached. */
  appEnded: 4,
  /** A bug in busscope itself. */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_TABLE = `Exit codes:
  0   done (Ctrl+C and --duration count as done); check: nothing that --fail-on selects
  1   check: findings that --fail-on selects (printed, with their sites)
  2   usage error (unknown command or option, bad value); reported before anything else is tried
  3   app not found, connection failed, trace unreadable, or the output file cannot be created
  4   the app ended (or stopped its probe) while attached; for check only when it ended
      before --duration was up and nothing failed (without --duration, its end ends the check)
  70  internal error (a bug in busscope)`;
