import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { deviceEnvironment } from "../../../domain/notifications/rules.ts";
import { invalid, notFound } from "../../../domain/shared/errors.ts";
import { newId } from "../../../domain/shared/ids.ts";
import { deviceById, deviceByToken, devicesOfUser } from "../../../projections/notifications/queries.ts";
import { runDeviceCommand } from "../../commands/notification-command.ts";
import { actorOf, SESSION } from "../auth/access.ts";
import type { ApiDeps } from "../deps.ts";
import { errorBody, idParams, TAGS } from "../schemas/common.ts";
import { deviceEnvelope, deviceList, exampleDevice, registerDeviceBody } from "../schemas/devices.ts";
import { idBody } from "../schemas/notifications.ts";

const tags = [TAGS.devices];

/** `/v1/devices…`: the caller's push devices. Users only (SESSION): agent keys get 403. */
export function deviceRoutes(deps: ApiDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/",
      {
        schema: {
          summary: "Register a push device",
          description:
            "The token is unique: registering it again refreshes `last_seen_at` and the metadata, and under another user " +
            "moves the device to the caller. Only `mobile_push` is a channel.",
          tags,
          body: registerDeviceBody,
          response: { 201: deviceEnvelope, 400: errorBody },
          examples: { 201: { device: exampleDevice } },
        },
        config: { access: SESSION },
      },
      async (request, reply) => {
        const { body } = request;
        if (body.channel !== "mobile_push") throw invalid("channel: unsupported channel; only mobile_push is supported");
        await runDeviceCommand(
          deps,
          { token: body.token },
          {
            type: "RegisterDevice",
            newDeviceId: newId(),
            userId: request.user.userId,
            token: body.token,
            platform: body.platform,
            environment: deviceEnvironment(body.environment),
            appVersion: body.app_version ?? null,
            deviceModel: body.device_model ?? null,
            osVersion: body.os_version ?? null,
            at: new Date().toISOString(),
          },
          actorOf(request.user),
        );
        const row = await deviceByToken(deps.pool, body.token);
        if (!row || row.user_id !== request.user.userId) throw notFound("device");
        const { user_id: _owner, ...device } = row;
        return reply.code(201).send({ device });
      },
    );

    app.get(
      "/",
      {
        schema: { summary: "List the caller's push devices", description: "Most recently seen first; tokens are never answered.", tags, response: { 200: deviceList }, examples: { 200: { devices: [exampleDevice] } } },
        config: { access: SESSION },
      },
      async (request) => ({ devices: [...(await devicesOfUser(deps.pool, request.user.userId))] }),
    );

    app.delete(
      "/:id",
      {
        schema: { summary: "Delete a push device", tags, params: idParams, response: { 200: idBody, 404: errorBody }, examples: { 200: { id: exampleDevice.id } } },
        config: { access: SESSION },
      },
      async (request) => {
        const { id } = request.params;
        const device = await deviceById(deps.pool, id);
        if (!device || device.user_id !== request.user.userId) throw notFound("device");
        await runDeviceCommand(deps, { tokenKey: device.token_key }, { type: "RemoveDevice", deviceId: id, userId: request.user.userId, reason: "deleted" }, actorOf(request.user));
        return { id };
      },
    );
  };
}
