// What the notifier's integration tests stand on: the real SQLite delivery log, merchant store, read
// model and bus in one temporary file, and a webhook receiver on 127.0.0.1 that checks every
// signature the way a merchant would.

import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultFeePolicy } from '@chainpay/domain'
import {
  createManualClock,
  createRootLogger,
  createSecretBox,
  generateSecretKey,
  type Logger,
  type ManualClock,
  type SecretBox,
} from '@chainpay/platform'
import {
  apiSecretContext,
  type Bus,
  type MerchantStore,
  type PaymentReadModel,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
  webhookSecretContext,
} from '@chainpay/ports'
import { verifyWebhook } from '@chainpay/signing'
import {
  createSqliteBus,
  createSqliteDeliveryStore,
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
  createSqliteWebhookEndpointStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'

export * from './payment-fixtures.js'

export const testLogger: Logger = createRootLogger({ service: 'notifier-test', level: 'silent' })

//////// A merchant's webhook receiver

export interface ReceivedWebhook {
  method: string
  path: string
  eventId: string
  eventType: string
  timestamp: string
  /** X-Signature */
  signature: string
  contentType: string
  userAgent: string
  body: string
  /** verifyWebhook with the merchant's secret, the signed body's id checked against X-Event-Id */
  verified: boolean
  /** the status code the receiver answered with; null when it never answered */
  answered: number | null
  /** performance.now() when the whole request had arrived */
  receivedAt: number
}

/**
 * how the receiver answers one request: a status (with headers), after `afterMs` if given, or
 * never
 */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; afterMs?: number } | 'hang'

export interface WebhookReceiver {
  /** http://<host>:<port> */
  origin: string
  received: ReceivedWebhook[]
  /** requests received and not answered yet */
  open: number
  /** the most requests that were open at once */
  mostOpen: number
  /** what the receiver answers; 200 unless replaced */
  answer: (request: ReceivedWebhook) => ReceiverAnswer
  close(): Promise<void>
}

/** a receiver on `host` (any of 127.0.0.0/8 on Linux: another host name to the dispatcher) */
export async function startReceiver(secret: string, host = '127.0.0.1'): Promise<WebhookReceiver> {
  const receiver: Omit<WebhookReceiver, 'origin' | 'close'> = {
    received: [],
    open: 0,
    mostOpen: 0,
    answer: () => ({ status: 200 }),
  }
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '')
      const body = Buffer.concat(chunks).toString('utf8')
      const webhook: ReceivedWebhook = {
        method: request.method ?? '',
        path: request.url ?? '',
        eventId: header('x-event-id'),
        eventType: header('x-event-type'),
        timestamp: header('x-timestamp'),
        signature: header('x-signature'),
        contentType: header('content-type'),
        userAgent: header('user-agent'),
        body,
        verified:
          verifyWebhook(
            secret,
            {
              rawBody: body,
              signature: header('x-signature'),
              timestamp: header('x-timestamp'),
              eventId: header('x-event-id'),
            },
            Math.floor(Date.now() / 1000),
          ).ok === true,
        answered: null,
        receivedAt: performance.now(),
      }
      receiver.received.push(webhook)
      receiver.open += 1
      receiver.mostOpen = Math.max(receiver.mostOpen, receiver.open)
      const answer = receiver.answer(webhook)
      if (answer === 'hang') return
      const respond = () => {
        receiver.open -= 1
        webhook.answered = answer.status
        response.writeHead(answer.status, answer.headers).end('thanks')
      }
      if (answer.afterMs === undefined) respond()
      else setTimeout(respond, answer.afterMs)
    })
  }
  const server = createServer(onRequest)
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(receiver, {
    origin: `http://${host}:${port}`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  })
}

//////// Stores

export interface NotifierHarness {
  path: string
  db: DatabaseSync
  bus: Bus
  deliveries: WebhookDeliveryStore
  merchants: MerchantStore
  webhookEndpoints: WebhookEndpointStore
  /** the notifier's own copy of payment state */
  payments: PaymentReadModel
  secretBox: SecretBox
  /** starts at the real time, so that receivers accept the signed timestamps */
  clock: ManualClock
  /** a merchant with a fresh webhook secret, returned in plain text */
  addMerchant(fields: { webhookUrl: string | null }): Promise<{ merchantId: string; secret: string }>
  /** a further connection to the same file, closed with the harness */
  reopen(): DatabaseSync
  close(): Promise<void>
}

export function createNotifierHarness(): NotifierHarness {
  const directory = mkdtempSync(join(tmpdir(), 'notifier-'))
  const path = join(directory, 'chainpay.sqlite')
  const db = openSqliteDatabase(path)
  const connections = [db]
  const bus = createSqliteBus(db, { logger: testLogger })
  const merchants = createSqliteMerchantStore(db)
  const secretBox = createSecretBox(generateSecretKey())
  const clock = createManualClock(new Date())
  return {
    path,
    db,
    bus,
    deliveries: createSqliteDeliveryStore(db),
    merchants,
    webhookEndpoints: createSqliteWebhookEndpointStore(db),
    payments: createSqlitePaymentReadModel(db, { table: 'notifier_payments' }),
    secretBox,
    clock,
    async addMerchant({ webhookUrl }) {
      const merchantId = `merchant-${randomUUID()}`
      const secret = `whsec_${randomUUID()}`
      const apiKey = `pk_${randomUUID()}`
      const now = clock.now().toISOString()
      await merchants.createMerchant(
        {
          merchantId,
          name: 'Test shop',
          webhookUrl,
          webhookSecret: secretBox.seal(secret, webhookSecretContext(merchantId)),
          feePolicy: defaultFeePolicy,
          createdAt: now,
          updatedAt: now,
        },
        {
          apiKey,
          merchantId,
          secret: secretBox.seal('sk_test', apiSecretContext({ apiKey, merchantId })),
          createdAt: now,
          revokedAt: null,
        },
      )
      return { merchantId, secret }
    },
    reopen() {
      const connection = openSqliteDatabase(path)
      connections.push(connection)
      return connection
    },
    async close() {
      await bus.close()
      for (const connection of connections) if (connection.isOpen) connection.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
