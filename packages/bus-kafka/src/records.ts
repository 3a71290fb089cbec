// Bus messages as Kafka records and back: the key, the value and every header as UTF-8 bytes, the
// plain record fields any Kafka tool reads.

import type { BusMessage, ConsumedMessage } from '@chainpay/ports'
import type { IHeaders, KafkaMessage, Message } from 'kafkajs'

export function toKafkaMessage(message: BusMessage): Message {
  return { key: message.key, value: message.value, headers: { ...message.headers } }
}

/** `offset` of the consumed message is `<partition>:<offset>`: a Kafka offset means nothing alone */
export function toConsumedMessage(topic: string, partition: number, record: KafkaMessage): ConsumedMessage {
  return {
    topic,
    key: record.key?.toString('utf8') ?? '',
    value: record.value?.toString('utf8') ?? '',
    headers: decodeHeaders(record.headers),
    offset: `${partition}:${record.offset}`,
  }
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: [string, string][] = []
  for (const [name, value] of Object.entries(headers ?? {})) {
    // a header another producer repeated: the last one counts, as in Kafka's Headers.lastHeader
    const last = Array.isArray(value) ? value.at(-1) : value
    // a null header value (not something this bus writes) has no string to stand for it
    if (last === undefined || last === null) continue
    decoded.push([name, Buffer.isBuffer(last) ? last.toString('utf8') : String(last)])
  }
  // fromEntries: a header named __proto__ becomes a plain property, not the object's prototype
  return Object.fromEntries(decoded)
}
