// The merchant API's payment routes (docs/api.md, "POST /payments" and "GET /payments/{paymentId}"). They
// are thin: authentication and error mapping happen around them, and a create's body goes to the
// command as the merchant sent it: the domain alone validates it (docs/api.md, "Validation").

import {
  API_BASE_PATH,
  CreatedPaymentViewSchema,
  PaymentIdParamsSchema,
  PaymentViewSchema,
} from '@chainpay/contracts'
import { DomainError, isPaymentId, toCreatedPaymentView, toPaymentView } from '@chainpay/domain'
import type { PaymentCommands, PaymentSnapshot } from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { MerchantCaller } from '../auth.js'
import type { ReadYourWrites } from './read-your-writes.js'

export interface PaymentRoutesDeps {
  commands: PaymentCommands
  /** every write and read of a payment goes through it */
  readYourWrites: ReadYourWrites
  /** every payment object carries its customer's page (docs/api.md, "The customer's page") */
  checkoutLinks: CheckoutLinks
}

export const paymentRoutes: FastifyPluginAsyncTypebox<PaymentRoutesDeps> = async (app, deps) => {
  const { commands, readYourWrites, checkoutLinks } = deps
  const viewOf = (payment: PaymentSnapshot['payment']) =>
    toPaymentView(payment, checkoutLinks.urlOf(payment.created.paymentId))
  app.post(
    '/payments',
    {
      // the response only: the body is the domain's to check (CreatePaymentBodySchema documents it)
      schema: { response: { 200: CreatedPaymentViewSchema, 201: CreatedPaymentViewSchema } },
    },
    async (request, reply) => {
      const { merchant } = callerOf(request)
      // payment-command loads the merchant's fee policy itself: it takes nobody's word for it
      const created = await commands.createPayment({ merchantId: merchant.merchantId, request: request.body })
      await readYourWrites.saveAfterCommand(created, request.log)
      const view = toCreatedPaymentView(
        created.payment,
        checkoutLinks.urlOf(created.payment.created.paymentId),
      )
      if (created.outcome === 'replayed') {
        return reply.code(200).header('idempotent-replayed', 'true').send(view)
      }
      return reply.code(201).header('location', `${API_BASE_PATH}/payments/${view.paymentId}`).send(view)
    },
  )

  app.get(
    '/payments/:paymentId',
    { schema: { params: PaymentIdParamsSchema, response: { 200: PaymentViewSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const paymentId = readPaymentId(request.params.paymentId)
      const snapshot = await readYourWrites.read(paymentId, merchant.merchantId)
      if (snapshot === null) throw paymentNotFound(paymentId)
      return viewOf(snapshot.payment)
    },
  )

  app.post(
    '/payments/:paymentId/cancel',
    { schema: { params: PaymentIdParamsSchema, response: { 200: PaymentViewSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const paymentId = readPaymentId(request.params.paymentId)
      if (request.rawBody !== '' && !isEmptyObject(request.body)) {
        throw new DomainError('VALIDATION_ERROR', 'body: must be empty or {}')
      }
      const canceled = await commands.cancelPayment({ merchantId: merchant.merchantId, paymentId })
      await readYourWrites.saveAfterCommand(canceled, request.log)
      return viewOf(canceled.payment)
    },
  )
}

function callerOf(request: FastifyRequest): MerchantCaller {
  // authentication ran as this route's preValidation hook; without a caller it would have thrown
  if (request.caller === null) throw new Error('payment route reached without an authenticated caller')
  return request.caller
}

/** UUIDs compare case-insensitively; payment ids are stored in lower case */
function readPaymentId(text: string): string {
  if (!isPaymentId(text)) throw new DomainError('VALIDATION_ERROR', 'paymentId: must be a UUID')
  return text.toLowerCase()
}

function paymentNotFound(paymentId: string): DomainError {
  return new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  )
}
