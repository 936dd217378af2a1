// The states of a subscription record (subscription.ts), in their own module so a bundler writes them
// into the bus's code as numbers.

/**
 * @internal `SubscriptionRecord.state`: one field the checking loops read per handler.
 * PLAIN: active, no owner, not once (call it straight away); SLOW: active with an owner or `once`
 * (check first); INACTIVE: unsubscribed. The ONCE bit is added to any of them.
 */
export const PLAIN = 0;
/** @internal */
export const SLOW = 1;
/** @internal */
export const INACTIVE = 2;
export const KIND = 3;
export const ONCE = 4;
