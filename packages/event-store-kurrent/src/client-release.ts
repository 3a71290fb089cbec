// Releasing a KurrentDBClient for good. The client holds two connections: a gRPC channel (appends,
// subscriptions) and its Rust bridge's (every read). Its dispose() only cancels the calls and
// streams it has open: the channel stays connected, pinging the server, and the bridge has no close
// at all (its connection ends once nothing references the client any more).

import type { KurrentDBClient } from '@kurrent/kurrentdb-client'

interface Channel {
  close(): void
}

/** the client's channel factory: an instance field at run time, private in its types */
interface ChannelFactory {
  createChannel: () => Promise<Channel>
}

export interface ReleasableClient {
  client: KurrentDBClient
  /** cancels the client's open calls and closes every gRPC channel it opened */
  release(): Promise<void>
}

/**
 * `client` with a record of every gRPC channel it opens (a new one after each reconnect), so that
 * release() closes them all, and asking for a channel at the end never opens one (which, for a
 * cluster, would mean discovering a node first).
 */
export function releasable(client: KurrentDBClient): ReleasableClient {
  const factory = client as unknown as ChannelFactory
  const createChannel = factory.createChannel
  if (typeof createChannel !== 'function') {
    throw new Error(
      '@kurrent/kurrentdb-client: no createChannel to track (a version this adapter does not know)',
    )
  }
  const channels = new Set<Channel>()
  factory.createChannel = async () => {
    const channel = await createChannel()
    channels.add(channel)
    return channel
  }
  return {
    client,
    async release() {
      await client.dispose()
      // closing a channel the client already closed (after a failure) does nothing
      for (const channel of channels) channel.close()
      channels.clear()
    },
  }
}
