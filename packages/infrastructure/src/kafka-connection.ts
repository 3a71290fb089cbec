// The Kafka clients' TLS and SASL options, from the configuration. The PEM files are read here, once,
// when the infrastructure opens (at start, before any connection): a missing or unreadable file is
// a ConfigError naming its variable, as a bad variable is. The files' contents are never repeated.

import { readFileSync } from 'node:fs'
import type { KafkaConnectionOptions } from '@chainpay/bus-kafka'
import { ConfigError } from '@chainpay/platform'
import type { InfrastructureConfig } from './infrastructure-config.js'

export type ReadFile = (path: string) => string

const readUtf8: ReadFile = (path) => readFileSync(path, 'utf8')

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----/
const PEM_PRIVATE_KEY = /-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/

/** throws ConfigError listing every TLS file that cannot be read or holds no PEM of its kind */
export function kafkaConnection(
  config: Pick<InfrastructureConfig, 'kafkaTls' | 'kafkaSasl'>,
  readFile: ReadFile = readUtf8,
): KafkaConnectionOptions {
  const { kafkaTls, kafkaSasl } = config
  const connection: KafkaConnectionOptions = {}
  if (kafkaSasl) connection.sasl = kafkaSasl
  if (!kafkaTls) return connection
  const problems: string[] = []
  const pem = (variable: string, path: string | undefined, kind: RegExp, what: string) => {
    if (path === undefined) return undefined
    let text: string
    try {
      text = readFile(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error)
      problems.push(`${variable}: cannot read ${path} (${code})`)
      return undefined
    }
    if (!kind.test(text)) {
      problems.push(`${variable}: ${path} holds no PEM ${what}`)
      return undefined
    }
    return text
  }
  const ca = pem('KAFKA_TLS_CA_FILE', kafkaTls.caFile, PEM_CERTIFICATE, 'certificate')
  const cert = pem('KAFKA_TLS_CERT_FILE', kafkaTls.certFile, PEM_CERTIFICATE, 'certificate')
  const key = pem('KAFKA_TLS_KEY_FILE', kafkaTls.keyFile, PEM_PRIVATE_KEY, 'private key')
  if (problems.length > 0) throw new ConfigError(problems)
  const { servername } = kafkaTls
  const options = {
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(servername !== undefined ? { servername } : {}),
  }
  // nothing but TLS itself: kafkajs's `ssl: true` uses Node's default CAs
  connection.tls = Object.keys(options).length > 0 ? options : true
  return connection
}
