export { EVENT_BREAKS_GLOBAL_KEY, eventBreaks, type BreakConditionTest, type EventBreakHit, type EventBreaksHook } from './event-breaks';
