// The merchant API's payment routes (docs/api.md, "POST /payments" and "GET /payments/{paymentId}"). They
// are thin: authentication and error mapping happen around them, and a create's body goes to the
// command as the merchant sent it: the domain alone validates it (docs/api.md, "Validation").

import { setTimeout as sleep } from 'node:timers/promises'
import {
  API_BASE_PATH,
  CreatedPaymentViewSchema,
  PaymentIdParamsSchema,
  PaymentViewSchema,
} from '@chainpay/contracts'
import { DomainError, isPaymentId, toCreatedPaymentView, toPaymentView } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import type { PaymentCommands, PaymentReadModel, PaymentSnapshot } from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { MerchantCaller } from '../auth.js'
import { createUnsavedRevisions } from './unsaved-revisions.js'

export interface PaymentRoutesDeps {
  commands: PaymentCommands
  readModel: PaymentReadModel
  clock: Clock
  /** every payment object carries its customer's page (docs/api.md, "The customer's page") */
  checkoutLinks: CheckoutLinks
}

/** tries of the write-through before the revision is remembered instead, and the pause between them */
const WRITE_THROUGH_ATTEMPTS = 3
const WRITE_THROUGH_PAUSE_MS = 20

export const paymentRoutes: FastifyPluginAsyncTypebox<PaymentRoutesDeps> = async (app, deps) => {
  const { commands, readModel, clock, checkoutLinks } = deps
  const viewOf = (payment: PaymentSnapshot['payment']) =>
    toPaymentView(payment, checkoutLinks.urlOf(payment.created.paymentId))
  const unsaved = createUnsavedRevisions({ clock })

  /**
   * Read your writes: the state a command produced goes to the read model right away. When the read
   * model will not take it, the revision is remembered, and GET asks payment-command while the read
   * model holds an older one.
   */
  const writeThrough = async (request: FastifyRequest, merchantId: string, snapshot: PaymentSnapshot) => {
    const paymentId = snapshot.payment.created.paymentId
    const document = {
      paymentId,
      merchantId,
      revision: snapshot.revision,
      state: snapshot.payment,
      updatedAt: isoNow(clock),
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await readModel.save(document)
        return
      } catch (error) {
        if (attempt < WRITE_THROUGH_ATTEMPTS) {
          await sleep(WRITE_THROUGH_PAUSE_MS * attempt)
          continue
        }
        // the command succeeded: answer it, and read this payment from payment-command for a while
        unsaved.remember(paymentId, snapshot.revision)
        request.log.warn(
          { err: error, paymentId, revision: snapshot.revision, attempts: attempt },
          'write-through to the read model failed',
        )
        return
      }
    }
  }

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
      await writeThrough(request, merchant.merchantId, created)
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
      const document = await readModel.get(paymentId)
      if (document !== null && !unsaved.isAhead(paymentId, document.revision)) {
        if (document.merchantId !== merchant.merchantId) throw paymentNotFound(paymentId)
        return viewOf(document.state)
      }
      // not projected yet, or older than a write the read model missed: the source of truth answers
      const snapshot = await commands.getPayment({ merchantId: merchant.merchantId, paymentId })
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
      await writeThrough(request, merchant.merchantId, canceled)
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
