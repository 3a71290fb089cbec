/** Durable named positions (the relay's place in the event store, for one). */
export interface CheckpointStore {
  load(name: string): Promise<string | null>
  store(name: string, position: string): Promise<void>
}
