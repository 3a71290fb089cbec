export * from './access-rules.js'
export * from './dashboard-accounts.js'
export * from './passwords.js'
export * from './totp.js'
