/**
 * The structured JSON logger: one JSON object per line on stdout, with the level, the message,
 * the time, the service and, inside a Lambda invocation, the function's context (the fields
 * Powertools' logger wrote, under the same names and read from the same variables:
 * POWERTOOLS_LOG_LEVEL, default INFO, and POWERTOOLS_SERVICE_NAME). A few lines of its own
 * instead of Powertools' (about 20 KB in every function package, docs/decisions.md W5). Error
 * values are written as `{ name, message, stack }`. Never log request bodies, tokens or passwords;
 * nothing here logs a Lambda event.
 */
import type { Context } from 'aws-lambda';

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof LEVELS;

/** The Lambda context of the invocation being served, as logged. */
interface LambdaFields {
  cold_start: boolean;
  function_arn: string;
  function_memory_size: number;
  function_name: string;
  function_request_id: string;
}

const isLevel = (v: string | undefined): v is Level => v !== undefined && v in LEVELS;

/** A JSON.stringify replacer: errors as `{ name, message, stack }` (and their cause). */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const { name, message, stack } = value;
    return { name, message, stack, ...(value.cause === undefined ? {} : { cause: value.cause }) };
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

export class Logger {
  private readonly threshold: number;
  private readonly service: string;
  private lambda: LambdaFields | undefined;
  private coldStart = true;

  constructor(options: { serviceName: string }) {
    const level = process.env.POWERTOOLS_LOG_LEVEL?.toUpperCase();
    this.threshold = LEVELS[isLevel(level) ? level : 'INFO'];
    this.service = process.env.POWERTOOLS_SERVICE_NAME ?? options.serviceName;
  }

  /** Adds the invocation's Lambda context to the following lines (the first invocation of a process is its cold start). */
  addContext(context: Context): void {
    this.lambda = {
      cold_start: this.coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: Number(context.memoryLimitInMB),
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.coldStart = false;
  }

  debug(message: string, extra?: Record<string, unknown>): void {
    this.write('DEBUG', message, extra);
  }

  info(message: string, extra?: Record<string, unknown>): void {
    this.write('INFO', message, extra);
  }

  warn(message: string, extra?: Record<string, unknown>): void {
    this.write('WARN', message, extra);
  }

  error(message: string, extra?: Record<string, unknown>): void {
    this.write('ERROR', message, extra);
  }

  private write(level: Level, message: string, extra: Record<string, unknown> = {}): void {
    if (LEVELS[level] < this.threshold) return;
    const trace = process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];
    const line = { level, message, timestamp: new Date().toISOString(), service: this.service, ...this.lambda, ...(trace ? { xray_trace_id: trace } : {}), ...extra };
    process.stdout.write(`${JSON.stringify(line, replacer)}\n`);
  }
}

export const logger = new Logger({ serviceName: 'catalogue-api' });
