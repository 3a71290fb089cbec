// The dev routes of the simulated rate source (docs/api.md, "Development endpoints"): where chains
// are simulated, a developer or a test sets the rate of a pair, its age, or a failure, and the next
// payment priced in fiat is priced with it. Who may call them is the host's rule: standalone serves
// them on the merchant port behind the chain simulator's (loopback or SIMULATOR_TOKEN); in the
// distributed shape payment-command serves them on its command API behind COMMAND_API_TOKEN, and the
// gateway forwards /dev/rates there under the simulator's rule.

import type { SimulatedRateSource } from '@chainpay/rates'
import { errorBody } from '@chainpay/service-kit'
import {
  type FastifyPluginAsyncTypebox,
  Type,
  TypeBoxValidatorCompiler,
} from '@fastify/type-provider-typebox'

export interface SimulatedRateRoutesOptions {
  source: SimulatedRateSource
}

export const SIMULATED_RATES_PATH = '/dev/rates'

const Code = Type.String({ pattern: '^[A-Z0-9]{2,10}$' })
const SetRateBody = Type.Object(
  {
    base: Code,
    quote: Type.String({ pattern: '^[A-Z]{3}$' }),
    value: Type.String({ minLength: 1, maxLength: 64 }),
    at: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    failure: Type.Optional(
      Type.Union(
        ['timeout', 'unreachable', 'http_status', 'malformed', 'unsupported_pair'].map((kind) =>
          Type.Literal(kind),
        ),
      ),
    ),
  },
  { additionalProperties: false },
)

export const simulatedRateRoutes: FastifyPluginAsyncTypebox<SimulatedRateRoutesOptions> = async (
  app,
  { source },
) => {
  app.setValidatorCompiler(TypeBoxValidatorCompiler)

  app.get(SIMULATED_RATES_PATH, async () => ({ data: source.list() }))

  app.post(
    SIMULATED_RATES_PATH,
    { schema: { body: SetRateBody }, attachValidation: true },
    async (request, reply) => {
      if (request.validationError) {
        return reply.code(400).send(errorBody('VALIDATION_ERROR', `body: ${request.validationError.message}`))
      }
      const { failure, at, ...rate } = request.body
      try {
        source.set({
          ...rate,
          ...(at === undefined ? {} : { at }),
          ...(failure === undefined
            ? {}
            : { failure: failure as NonNullable<Parameters<SimulatedRateSource['set']>[0]['failure']> }),
        })
      } catch (error) {
        return reply.code(400).send(errorBody('VALIDATION_ERROR', (error as Error).message))
      }
      return reply
        .code(200)
        .send({ rate: source.list().find((known) => known.base === rate.base && known.quote === rate.quote) })
    },
  )
}
