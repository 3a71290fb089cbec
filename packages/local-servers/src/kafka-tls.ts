// Certificates for a local Kafka's SASL_SSL listener, made with the machine's openssl: a throwaway
// CA, a broker certificate for 127.0.0.1/localhost signed by it, and a client certificate for mutual
// TLS. Nothing here is meant to outlive the test run that made it.

import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const VALID_DAYS = '7'

export interface KafkaTlsMaterial {
  /** PEM: the CA that signed the broker's and the client's certificates */
  caFile: string
  /** PKCS12 with the broker's key and certificate chain, protected by keystorePassword */
  brokerKeystoreFile: string
  keystorePassword: string
  /** PEM: a client certificate and its key (unencrypted PKCS#8), for mutual TLS */
  clientCertFile: string
  clientKeyFile: string
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd, maxBuffer: 4 * 1024 * 1024 })
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new Error(`openssl ${args[0]} failed (the SASL_SSL listener needs openssl on PATH): ${detail}`)
  }
}

async function signedCertificate(
  directory: string,
  name: string,
  options: { subject: string; extensions: string[] },
): Promise<void> {
  writeFileSync(join(directory, `${name}.ext`), `${options.extensions.join('\n')}\n`)
  await openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      options.subject,
    ],
    directory,
  )
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      VALID_DAYS,
      '-sha256',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    directory,
  )
}

/** writes a CA, a broker keystore and a client certificate into `directory` (created if missing) */
export async function createKafkaTlsMaterial(directory: string): Promise<KafkaTlsMaterial> {
  mkdirSync(directory, { recursive: true })
  await openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      VALID_DAYS,
      '-sha256',
      '-subj',
      '/CN=chainpay local Kafka test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    directory,
  )
  await signedCertificate(directory, 'broker', {
    subject: '/CN=localhost',
    extensions: [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
  })
  await signedCertificate(directory, 'client', {
    subject: '/CN=chainpay-test-client',
    extensions: [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=clientAuth',
    ],
  })
  const keystorePassword = randomBytes(12).toString('hex')
  await openssl(
    [
      'pkcs12',
      '-export',
      '-in',
      'broker.crt',
      '-inkey',
      'broker.key',
      '-certfile',
      'ca.crt',
      '-name',
      'broker',
      '-out',
      'broker.p12',
      '-passout',
      `pass:${keystorePassword}`,
    ],
    directory,
  )
  return {
    caFile: join(directory, 'ca.crt'),
    brokerKeystoreFile: join(directory, 'broker.p12'),
    keystorePassword,
    clientCertFile: join(directory, 'client.crt'),
    clientKeyFile: join(directory, 'client.key'),
  }
}
