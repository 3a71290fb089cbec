import type { FastifyInstance } from 'fastify'

/** starts listening; resolves with the address, e.g. http://127.0.0.1:8080 */
export async function listenGateway(
  app: FastifyInstance,
  options: { host: string; port: number },
): Promise<string> {
  return app.listen({ host: options.host, port: options.port })
}
