export * from './http-payment-commands.js'
export * from './routes.js'
