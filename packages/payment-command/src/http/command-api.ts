// The internal HTTP API through which a gateway in another process sends payment commands. It
// carries the PaymentCommands port as it is: the request body is passed through untouched (the
// domain validates it, and its fingerprint must be that of the merchant's own JSON), and failures
// travel as the merchant API's error body with the status of their code.

import { httpStatusOf } from '@chainpay/contracts'
import { type CreatePaymentRequest, DomainError, type ErrorCode, isDomainError } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { PaymentCommands } from '@chainpay/ports'
import { Type, type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify'
import { isStoreUnavailable } from '../store-failures.js'
import { commandApiRoutes } from './routes.js'

export interface CommandApiOptions {
  handler: PaymentCommands
  logger: Logger
  /** largest accepted body; default 1 MiB */
  bodyLimit?: number
}

const strict = { additionalProperties: false } as const
const MerchantId = Type.String({ minLength: 1 })

const CreateBody = Type.Object(
  {
    merchantId: MerchantId,
    feePolicy: Type.Object(
      { feeBps: Type.Integer({ minimum: 0 }), fixedFees: Type.Record(Type.String(), Type.String()) },
      strict,
    ),
    // only its being an object is checked here; validateCreatePaymentRequest checks every field
    request: Type.Unsafe<CreatePaymentRequest>(Type.Object({})),
  },
  strict,
)
const PaymentParams = Type.Object({ paymentId: Type.String({ minLength: 1 }) }, strict)
const CancelBody = Type.Object({ merchantId: MerchantId }, strict)
const MerchantQuery = Type.Object({ merchantId: MerchantId }, strict)

export function buildCommandApi(options: CommandApiOptions): FastifyInstance {
  const { handler, logger } = options
  const loggerInstance: FastifyBaseLogger = logger
  const app = Fastify({ loggerInstance, bodyLimit: options.bodyLimit ?? 1024 * 1024 })
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  // strict checks that never coerce or fill in defaults: the request must arrive as it was sent
  api.setValidatorCompiler(TypeBoxValidatorCompiler)

  api.post(commandApiRoutes.payments, { schema: { body: CreateBody } }, async (request, reply) => {
    const outcome = await handler.createPayment(request.body)
    return reply.code(outcome.outcome === 'created' ? 201 : 200).send(outcome)
  })

  api.post(
    commandApiRoutes.cancel,
    { schema: { params: PaymentParams, body: CancelBody } },
    async (request, reply) => {
      const { paymentId } = request.params
      return reply.send(await handler.cancelPayment({ merchantId: request.body.merchantId, paymentId }))
    },
  )

  api.get(
    commandApiRoutes.payment,
    { schema: { params: PaymentParams, querystring: MerchantQuery } },
    async (request, reply) => {
      const { paymentId } = request.params
      const snapshot = await handler.getPayment({ merchantId: request.query.merchantId, paymentId })
      if (snapshot === null) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
      return reply.send(snapshot)
    },
  )

  api.setNotFoundHandler((request, reply) =>
    sendError(reply, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
  )

  api.setErrorHandler((error, request, reply) => {
    const { code, message } = toErrorBody(error)
    if (code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'payment command failed')
    if (code === 'SERVICE_UNAVAILABLE') request.log.warn({ err: error }, 'payment command failed; retryable')
    return sendError(reply, code, message)
  })

  return app
}

/** seconds a caller is asked to wait after a 503 */
const RETRY_AFTER_SECONDS = 5

function sendError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  if (code === 'SERVICE_UNAVAILABLE') reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  return reply.code(httpStatusOf(code)).send({ error: { code, message } })
}

function toErrorBody(error: unknown): { code: ErrorCode; message: string } {
  if (isDomainError(error)) return { code: error.code, message: error.message }
  if (isStoreUnavailable(error)) {
    // the merchant may read this message through the gateway: nothing internal in it
    return { code: 'SERVICE_UNAVAILABLE', message: 'the payment store is unavailable; retry later' }
  }
  const fastifyError = error as Partial<FastifyError>
  if (fastifyError.validation) return { code: 'VALIDATION_ERROR', message: fastifyError.message ?? 'invalid' }
  switch (fastifyError.statusCode) {
    case 413:
      return { code: 'PAYLOAD_TOO_LARGE', message: 'the request body is too large' }
    case 415:
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'the request body must be application/json' }
    case 400:
      return { code: 'VALIDATION_ERROR', message: fastifyError.message ?? 'bad request' }
    default:
      return { code: 'INTERNAL_ERROR', message: 'internal error' }
  }
}
