import { Repository, type Row } from "./repository";
import * as log from "./log";

/** Validates tokens against the repository. */
export class AuthService {
  private attempts = 0;

  constructor(private readonly store: Repository) {}

  /** True when the token names a known user. */
  validate(token: string): boolean {
    this.attempts++;
    const row: Row | undefined = this.store.find(token);
    log.debug(`validate ${token}`);
    return row !== undefined;
  }

  reset(): void {
    this.attempts = 0;
  }
}

export function format(token: string): string;
export function format(token: string, width?: number): string {
  const pad = (s: string) => s.padStart(width ?? 8);
  return pad(token);
}

export function check(service: AuthService, token: string) {
  const attempts = 3;
  const local = new AuthService(new Repository());
  if (service.validate(token) || local.validate(token)) {
    return { token, attempts };
  }
  // validate is mentioned here, and "token" in a string
  return other().validate(token);
}

export { format as formatToken };
