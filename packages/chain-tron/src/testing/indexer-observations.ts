// What a test of the chain indexer over this client needs around it: PaymentCreated messages as the
// relay publishes them, and the chain observations the indexer publishes, read back through a real
// bus subscription. (The same as chain-indexer's own test harness, which its package does not export.)
import { randomUUID } from 'node:crypto'
import {
  type ChainObservationMessage,
  parseChainObservationMessage,
  paymentEventBusMessage,
  type TransferObservation,
} from '@chainpay/contracts'
import { paymentEventMessage } from '@chainpay/contracts/testing'
import { defaultAssetRegistry, findNetwork, resolveAsset, toUnits } from '@chainpay/domain'
import { paymentCreatedData } from '@chainpay/domain/testing'
import { type Bus, type ConsumedMessage, Topics } from '@chainpay/ports'

const MARKER_HEADER = 'test-marker'

export interface ObservationLog {
  /** the transfer observations of one payment, once everything published before the call is read */
  transfersOf(paymentId: string): Promise<TransferObservation[]>
  stop(): Promise<void>
}

export async function observeChain(bus: Bus): Promise<ObservationLog> {
  const received: ChainObservationMessage[] = []
  const waiting = new Map<string, () => void>()
  const subscription = await bus.subscribe({
    topic: Topics.chainObservations,
    groupId: `test-${randomUUID()}`,
    handle: async (message) => {
      const marker = message.headers[MARKER_HEADER]
      if (marker === undefined) received.push(parseChainObservationMessage(message.value))
      else waiting.get(marker)?.()
    },
  })
  // one order per topic: once the marker is read, so is everything published before it
  const settle = async () => {
    const marker = randomUUID()
    const seen = new Promise<void>((resolve) => waiting.set(marker, resolve))
    await bus.publish(Topics.chainObservations, [
      { key: 'marker', value: '{}', headers: { [MARKER_HEADER]: marker } },
    ])
    await seen
    waiting.delete(marker)
    return [...received]
  }
  return {
    async transfersOf(paymentId) {
      return (await settle()).filter(
        (observation): observation is TransferObservation =>
          observation.kind === 'transfer' && observation.paymentId === paymentId,
      )
    },
    stop: () => subscription.stop(),
  }
}

export interface TestPayment {
  paymentId: string
  address: string
  message: ConsumedMessage
}

/** a PaymentCreated message of 10 units of `currency` to `address`, as a subscription hands it over */
export function paymentCreated(network: string, currency: string, address: string): TestPayment {
  const asset = resolveAsset(defaultAssetRegistry, { network, currency })
  const units = toUnits('10', asset.decimals).toString()
  const data = paymentCreatedData({
    paymentId: randomUUID(),
    network,
    currency,
    tokenStandard: asset.tokenStandard,
    decimals: asset.decimals,
    amount: '10',
    amountUnits: units,
    feeUnits: '0',
    netUnits: units,
    address,
    tokenAccount: null,
    derivationPath: "m/44'/195'/0'/0/1",
    requiredConfirmations: findNetwork(defaultAssetRegistry, network)?.requiredConfirmations ?? 1,
    createdAt: new Date().toISOString(),
  })
  const message = paymentEventMessage({ type: 'PaymentCreated', data })
  return {
    paymentId: data.paymentId,
    address,
    message: {
      topic: Topics.paymentEvents,
      offset: String(message.revision),
      ...paymentEventBusMessage(message),
    },
  }
}
