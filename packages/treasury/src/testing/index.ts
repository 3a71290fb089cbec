export { signPlan } from '../plan-signer.js'
export * from './node-interceptor.js'
export * from './wallet-process.js'
