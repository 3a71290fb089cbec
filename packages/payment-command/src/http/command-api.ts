// The internal HTTP API through which a gateway in another process sends payment commands, on
// service-kit's HTTP foundation. It carries the PaymentCommands port as it is: the merchant's request
// is passed through untouched (the domain validates it, and its fingerprint must be that of the
// merchant's own JSON), and failures travel as the merchant API's error body with the status of
// their code, which the client (@chainpay/command-api-client) turns back into the same errors.
// Only the bearer of COMMAND_API_TOKEN may command, when there is one (there must be one off
// loopback: config.ts); the caller names the merchant, and the handler loads it and its fee policy
// itself (docs/architecture.md, "The command API").

import { commandApiRoutes, outgoingCommandMethods } from '@chainpay/command-api-client'
import { MerchantWalletKeysSchema, SweepRecordSchema } from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type {
  DepositAddressCommands,
  DepositSweepCommands,
  InvoiceCommands,
  MerchantWallets,
  OutgoingCommands,
  PaymentCommands,
} from '@chainpay/ports'
import type { SimulatedRateSource } from '@chainpay/rates'
import {
  acceptStrictJsonBodies,
  bearerTokenCheck,
  createHttpApp,
  type HttpApp,
  type HttpRequestMetrics,
} from '@chainpay/service-kit'
import { Type } from '@fastify/type-provider-typebox'
import { simulatedRateRoutes } from './simulated-rate-routes.js'

export interface CommandApiOptions {
  handler: PaymentCommands
  /** the invoices' commands (docs/api.md, "Invoices"); no invoice routes when absent */
  invoices?: InvoiceCommands
  /** customers' deposit addresses (docs/api.md, "Deposit addresses"); no such route when absent */
  depositAddresses?: DepositAddressCommands
  /** the operator's sweeps of customers' deposits (docs/api.md, "Balances and sweeps"); no such route when absent */
  depositSweeps?: DepositSweepCommands
  /** refunds and payouts (docs/api.md, "Refunds and payouts"); no such routes when absent */
  outgoing?: OutgoingCommands
  /** merchants' own wallets, set by the gateway's admin API; no wallet routes when absent */
  merchantWallets?: MerchantWallets
  logger: Logger
  /** largest accepted body; default 1 MiB */
  bodyLimit?: number
  /** observes every request, by route pattern */
  requestMetrics?: HttpRequestMetrics
  /** COMMAND_API_TOKEN: every command requires `Authorization: Bearer <token>`; none when undefined */
  token?: string | undefined
  /** the simulated rate source, when RATE_SOURCES names it: its dev routes, behind the token too */
  simulatedRates?: SimulatedRateSource | undefined
}

const strict = { additionalProperties: false } as const
const MerchantId = Type.String({ minLength: 1 })

// The envelope only: for which merchant. No fee policy: payment-command charges the one its merchant
// store holds. The merchant's request inside it is checked by the domain alone (docs/api.md,
// "Validation").
const CreateBody = Type.Object({ merchantId: MerchantId, request: Type.Unknown() }, strict)
const PaymentParams = Type.Object({ paymentId: Type.String({ minLength: 1 }) }, strict)
const CancelBody = Type.Object(
  {
    merchantId: MerchantId,
    canceledBy: Type.Optional(Type.Union([Type.Literal('merchant'), Type.Literal('customer')])),
  },
  strict,
)
const MerchantQuery = Type.Object({ merchantId: MerchantId }, strict)
const MerchantParams = Type.Object({ merchantId: MerchantId }, strict)
const EmptyBody = Type.Object({}, strict)

export function buildCommandApi(options: CommandApiOptions): HttpApp {
  const app = createHttpApp({
    logger: options.logger,
    component: 'command-api',
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    ...(options.requestMetrics ? { requestMetrics: options.requestMetrics } : {}),
  })
  // the merchant API's JSON rules: a "__proto__" metadata key the gateway accepted is a plain key here too
  acceptStrictJsonBodies(app)
  // in a plugin of their own, so that the token guards the commands and not the health routes a
  // caller may register next to them (kubelet probes carry no token)
  app.register(async (commands) => {
    if (options.token !== undefined) {
      commands.addHook('onRequest', bearerTokenCheck(options.token, 'COMMAND_API_TOKEN'))
    }
    commandRoutes(commands, options.handler)
    if (options.invoices) invoiceCommandRoutes(commands, options.invoices)
    if (options.merchantWallets) merchantWalletRoutes(commands, options.merchantWallets)
    if (options.simulatedRates)
      await commands.register(simulatedRateRoutes, { source: options.simulatedRates })
    if (options.outgoing) outgoingRoutes(commands, options.outgoing)
    if (options.depositAddresses) depositAddressRoutes(commands, options.depositAddresses)
    if (options.depositSweeps) depositSweepRoutes(commands, options.depositSweeps)
  })
  return app
}

function commandRoutes(app: HttpApp, handler: PaymentCommands): void {
  app.post(commandApiRoutes.payments, { schema: { body: CreateBody } }, async (request, reply) => {
    const outcome = await handler.createPayment(request.body)
    return reply.code(outcome.outcome === 'created' ? 201 : 200).send(outcome)
  })

  app.post(
    commandApiRoutes.cancel,
    { schema: { params: PaymentParams, body: CancelBody } },
    async (request, reply) => {
      const { paymentId } = request.params
      const { merchantId, canceledBy } = request.body
      return reply.send(
        await handler.cancelPayment({ merchantId, paymentId, ...(canceledBy ? { canceledBy } : {}) }),
      )
    },
  )

  app.get(
    commandApiRoutes.payment,
    { schema: { params: PaymentParams, querystring: MerchantQuery } },
    async (request, reply) => {
      const { paymentId } = request.params
      const snapshot = await handler.getPayment({ merchantId: request.query.merchantId, paymentId })
      if (snapshot === null) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
      return reply.send(snapshot)
    },
  )

  app.post(
    commandApiRoutes.sweeps,
    { schema: { params: PaymentParams, body: SweepRecordSchema } },
    async (request, reply) => {
      const outcome = await handler.recordSweep({ paymentId: request.params.paymentId, ...request.body })
      return reply.code(outcome.outcome === 'recorded' ? 201 : 200).send(outcome)
    },
  )

  app.get(
    commandApiRoutes.history,
    { schema: { params: PaymentParams, querystring: MerchantQuery } },
    async (request, reply) => {
      const { paymentId } = request.params
      const events = await handler.getPaymentHistory({ merchantId: request.query.merchantId, paymentId })
      if (events === null) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
      return reply.send({ events })
    },
  )
}

const InvoiceParams = Type.Object({ invoiceId: Type.String({ minLength: 1 }) }, strict)
const MerchantBody = Type.Object({ merchantId: MerchantId }, strict)
const PickBody = Type.Object(
  { merchantId: MerchantId, currency: Type.String(), network: Type.String() },
  strict,
)

function invoiceCommandRoutes(app: HttpApp, invoices: InvoiceCommands): void {
  app.post(commandApiRoutes.invoices, { schema: { body: CreateBody } }, async (request, reply) => {
    const outcome = await invoices.createInvoice(request.body)
    return reply.code(outcome.outcome === 'created' ? 201 : 200).send(outcome)
  })
  app.get(
    commandApiRoutes.invoice,
    { schema: { params: InvoiceParams, querystring: MerchantQuery } },
    async (request, reply) => {
      const { invoiceId } = request.params
      const snapshot = await invoices.getInvoice({ merchantId: request.query.merchantId, invoiceId })
      if (snapshot === null) throw new DomainError('INVOICE_NOT_FOUND', `invoice ${invoiceId} not found`)
      return reply.send(snapshot)
    },
  )
  app.post(
    commandApiRoutes.invoiceCancel,
    { schema: { params: InvoiceParams, body: MerchantBody } },
    async (request) =>
      invoices.cancelInvoice({ merchantId: request.body.merchantId, invoiceId: request.params.invoiceId }),
  )
  app.post(
    commandApiRoutes.invoicePick,
    { schema: { params: InvoiceParams, body: PickBody } },
    async (request) => invoices.pickInvoicePayment({ ...request.body, invoiceId: request.params.invoiceId }),
  )
}

function merchantWalletRoutes(app: HttpApp, wallets: MerchantWallets): void {
  app.put(
    commandApiRoutes.merchantWallet,
    { schema: { params: MerchantParams, body: MerchantWalletKeysSchema } },
    async (request) => wallets.set(request.params.merchantId, request.body),
  )
  // "no wallet" is an answer (200), so that it is never mistaken for a route this server lacks (404)
  app.get(commandApiRoutes.merchantWallet, { schema: { params: MerchantParams } }, async (request) => ({
    wallet: await wallets.show(request.params.merchantId),
  }))
  app.delete(commandApiRoutes.merchantWallet, { schema: { params: MerchantParams } }, async (request) => ({
    removed: await wallets.remove(request.params.merchantId),
  }))
  app.post(commandApiRoutes.resealWalletSeeds, { schema: { body: EmptyBody } }, async () =>
    wallets.resealSeeds(),
  )
}

const OutgoingParams = Type.Object(
  { method: Type.Union(outgoingCommandMethods.map((method) => Type.Literal(method))) },
  strict,
)
const OutgoingInput = Type.Object({}, { additionalProperties: true })

/**
 * The OutgoingCommands port as it is: one route per method, its input the body and its result
 * `{"result"}`. The merchant's request inside a create is checked by the domain alone, as a payment's.
 */
function outgoingRoutes(app: HttpApp, outgoing: OutgoingCommands): void {
  app.post(
    commandApiRoutes.outgoing,
    { schema: { params: OutgoingParams, body: OutgoingInput } },
    async (request, reply) => {
      const method = request.params.method as (typeof outgoingCommandMethods)[number]
      const call = outgoing[method] as (input: unknown) => Promise<unknown>
      const result = await call.call(outgoing, request.body)
      return reply.send({ result })
    },
  )
}

/** the merchant's body passed as sent, checked by the domain alone, as a payment's */
function depositAddressRoutes(app: HttpApp, depositAddresses: DepositAddressCommands): void {
  app.post(commandApiRoutes.depositAddresses, { schema: { body: CreateBody } }, async (request, reply) => {
    const outcome = await depositAddresses.ensureDepositAddress(request.body)
    return reply.code(outcome.outcome === 'created' ? 201 : 200).send(outcome)
  })
}

const DepositParams = Type.Object({ depositId: Type.String({ minLength: 1 }) }, strict)

/** a sweep of a customer's deposit, as a payment's (the domain validates its figures) */
function depositSweepRoutes(app: HttpApp, depositSweeps: DepositSweepCommands): void {
  app.post(
    commandApiRoutes.depositSweeps,
    { schema: { params: DepositParams, body: SweepRecordSchema } },
    async (request, reply) => {
      const outcome = await depositSweeps.recordDepositSweep({
        depositId: request.params.depositId,
        ...request.body,
      })
      return reply.code(outcome.outcome === 'recorded' ? 201 : 200).send(outcome)
    },
  )
}
