// How a kafkajs client reaches the brokers beyond their addresses: TLS and SASL. Every kafkajs client
// of the bus (producer, consumers, admin) and of the readiness probe is built with the same options,
// so that none of them is left on a plaintext or unauthenticated connection.

import type { ConnectionOptions } from 'node:tls'
import type { KafkaConfig, SASLOptions } from 'kafkajs'

export type KafkaSaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512'
export const KAFKA_SASL_MECHANISMS: readonly KafkaSaslMechanism[] = [
  'plain',
  'scram-sha-256',
  'scram-sha-512',
]

export interface KafkaConnectionOptions {
  /**
   * TLS to every broker. `true`: the system's CAs, no client certificate; an object: Node's TLS
   * options (ca, cert, key, servername), verified always (rejectUnauthorized is forced on).
   * Absent: plaintext.
   */
  tls?: true | Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'servername'>
  /** SASL authentication, on top of TLS or (not recommended) plaintext */
  sasl?: { mechanism: KafkaSaslMechanism; username: string; password: string }
}

/** the part of a kafkajs client's configuration that `connection` decides */
export function kafkajsConnectionConfig(
  connection: KafkaConnectionOptions = {},
): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = connection
  const config: Pick<KafkaConfig, 'ssl' | 'sasl'> = {}
  if (tls === true) config.ssl = true
  else if (tls) config.ssl = { ...tls, rejectUnauthorized: true }
  if (sasl) config.sasl = kafkajsSasl(sasl)
  return config
}

// one case per mechanism: kafkajs's SASLOptions is a union a variable mechanism cannot satisfy
function kafkajsSasl({
  mechanism,
  username,
  password,
}: NonNullable<KafkaConnectionOptions['sasl']>): SASLOptions {
  switch (mechanism) {
    case 'plain':
      return { mechanism, username, password }
    case 'scram-sha-256':
      return { mechanism, username, password }
    case 'scram-sha-512':
      return { mechanism, username, password }
  }
}

/**
 * A plaintext client talking to a TLS listener sees only "Closed connection": the broker hangs up on
 * the first bytes. Said with its likely reason when this client has TLS off; `error` as is otherwise.
 */
export function explainConnectionFailure(error: unknown, connection: KafkaConnectionOptions = {}): unknown {
  if (connection.tls) return error
  const closed = causes(error).find((e) => e.name === 'KafkaJSConnectionClosedError') as
    | (Error & { host?: string; port?: number })
    | undefined
  if (!closed) return error
  const broker = closed.host !== undefined ? `${closed.host}:${closed.port}` : 'the broker'
  return new Error(
    `kafka: ${broker} closed the connection without answering; a listener that expects TLS (SSL or SASL_SSL) does that to a plaintext client: if it does, turn TLS on (KAFKA_TLS=true)`,
    { cause: error },
  )
}

function causes(error: unknown): Error[] {
  const chain: Error[] = []
  for (let e = error; e instanceof Error && chain.length < 10; e = e.cause) chain.push(e)
  return chain
}
