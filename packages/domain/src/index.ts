export * from './assets.js'
export * from './errors.js'
export * from './fees.js'
export * from './payment.js'
