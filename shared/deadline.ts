/**
 * The time a request has for its work (ADR 0169): the function's timeout less a margin for
 * answering, from when the request started. A call that waits on another service (the payment
 * provider) takes its timeout from what is left, so a slow service is a 503 the function still
 * sends, never the function's own timeout (a 5xx with no body).
 *
 * Elapsed time is `performance.now()`'s, never the service's clock: tests stop that clock and
 * the local runtime moves it by days, while a deadline is about time really passing.
 */

export interface RequestBudget {
  /** The function's timeout (lib/lambda.ts takes every API function's from here); in Lambda the invocation's remaining time rules when less. */
  functionTimeoutMs: number;
  /** Kept back for answering once the work gives up: the problem body, the log line, the metrics. */
  replyMarginMs: number;
}

/** The API functions' 10 s less 1.5 s to answer: 8.5 s of work. */
export const defaultRequestBudget: RequestBudget = { functionTimeoutMs: 10_000, replyMarginMs: 1_500 };

export const monotonicNow = (): number => performance.now();

/** A moment on the timeline of `now`, by which a request's work must be done. */
export class Deadline {
  /** No deadline: calls made outside a request (scripts, the contract tests) keep their clients' own timeouts. */
  static readonly none = new Deadline(Number.POSITIVE_INFINITY);

  constructor(
    readonly at: number,
    private readonly now: () => number = monotonicNow,
  ) {}

  /** Milliseconds left: negative once passed, infinite for none. */
  remaining(): number {
    return this.at - this.now();
  }
}

/**
 * A request's deadline, read as it starts: the function's timeout or, in Lambda, what the
 * invocation has left (`context.getRemainingTimeInMillis()`, the truth there), whichever is less,
 * less the reply margin. The local gateway's context says API Gateway's 30 s: the function's
 * 10 s rules there, as in Lambda.
 */
export function requestDeadline(budget: RequestBudget, invocationLeftMs: number | undefined, now: () => number = monotonicNow): Deadline {
  const left = Math.min(budget.functionTimeoutMs, invocationLeftMs ?? Number.POSITIVE_INFINITY);
  return new Deadline(now() + left - budget.replyMarginMs, now);
}

/** A port whose calls wait on another service: the view of it one request uses, its calls bounded by the request's deadline. */
export interface WithinDeadline<Port> {
  within(deadline: Deadline): Port;
}
