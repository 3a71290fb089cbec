// Releasing a KurrentDBClient for good. The client holds two connections: a gRPC channel (appends,
// subscriptions) and its Rust bridge's (every read). Its dispose() only cancels the calls and
// streams it has open: the channel stays connected, pinging the server, and the bridge has no close
// at all (its connection ends once nothing references the client any more).

import type { KurrentDBClient } from '@kurrent/kurrentdb-client'

/** the part of the client's gRPC plumbing that is protected in its types */
interface ChannelHolder {
  getChannel(): Promise<{ close(): void }>
}

/**
 * Cancels the client's open calls and closes its gRPC channel. `channelOpened` says whether the
 * client ever made a gRPC call: asking a client that did not for its channel would open one (and,
 * for a cluster, discover a node first) just to close it.
 */
export async function releaseClient(client: KurrentDBClient, channelOpened: boolean): Promise<void> {
  await client.dispose()
  if (!channelOpened) return
  const channel = await (client as unknown as ChannelHolder).getChannel()
  channel.close()
}
