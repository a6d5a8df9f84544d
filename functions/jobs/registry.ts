/**
 * Scheduled jobs (API.md §5.5, DESIGN.md §5): one declaration per job. The CDK app creates one
 * function and one EventBridge rule for each entry; the local scheduler runs the same modules.
 * Later issues add entries here (season, schedule and ranking refreshes); the list is empty
 * until the first job exists.
 */
export interface JobDecl {
  /** Unique, `[a-z0-9-]+`: names the function and the rule. */
  name: string;
  /** The job's module, relative to the repository root; it exports `handler`. */
  entry: string;
  /** An EventBridge schedule expression: `rate(1 hour)` or `cron(0 3 * * ? *)` (UTC). */
  schedule: string;
  description?: string;
}

export const JOBS: readonly JobDecl[] = [];
