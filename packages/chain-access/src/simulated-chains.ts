// The simulated chains (CHAIN_MODE=simulator): the simulator, kept in the service's SQLite file, and
// the routes that drive it and serve it as TRON and Solana nodes (/dev/chains/*, /chains/<network>),
// which chainAccess reads like real nodes (simulatorEndpoints). Loaded on first use, as the clients.
import type { ChainSimulator, ChainSimulatorOptions } from '@chainpay/chain-sim'
import type { FastifyPluginAsync } from 'fastify'

export interface SimulatedChains {
  simulator: ChainSimulator
  /** the simulator's routes, for the service's HTTP port */
  routes: FastifyPluginAsync
}

export async function createSimulatedChains(
  options: ChainSimulatorOptions & {
    /** SIMULATOR_TOKEN: callers of the routes must send it; undefined: callers on this machine only */
    token: string | undefined
  },
): Promise<SimulatedChains> {
  const { chainSimulatorRoutes, createChainSimulator } = await import('@chainpay/chain-sim')
  const { token, ...simulatorOptions } = options
  const simulator = createChainSimulator(simulatorOptions)
  return {
    simulator,
    routes: async (app) => {
      await app.register(chainSimulatorRoutes, { simulator, token })
    },
  }
}
