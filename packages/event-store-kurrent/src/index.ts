export type { ResubscribeDelays } from './append-watcher.js'
export { createKurrentEventStore, type KurrentEventStoreOptions } from './event-store.js'
