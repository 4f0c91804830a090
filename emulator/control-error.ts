// One error family (README "Errors"): what the emulator refuses — a control-API call made in process
// or over /_emulator, or an emulator option — is a ResellerClientError like everything else the
// package throws. `status` is what /_emulator answers for it.
import { ResellerClientError, errorGuard } from "../runtime/error-base";

export class EmulatorControlError extends ResellerClientError {
  override readonly name = "EmulatorControlError";
  override readonly code = "emulator_control" as const;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const isEmulatorControlError = errorGuard<EmulatorControlError>("emulator_control");
