/** The CLI version string printed by `hermes --version`. */
export const CLI_VERSION = '0.1.0';
