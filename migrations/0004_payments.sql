CREATE TABLE `commissions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payment_id` integer NOT NULL,
	`reseller_id` integer NOT NULL,
	`client_id` integer NOT NULL,
	`amount_cents` integer NOT NULL,
	`commission_bps` integer NOT NULL,
	`status` text NOT NULL,
	`reversal_due_cents` integer DEFAULT 0 NOT NULL,
	`transfer_id` text,
	`transferred_cents` integer DEFAULT 0 NOT NULL,
	`reversed_cents` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`lease_until` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`reseller_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`client_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `commissions_payment` ON `commissions` (`payment_id`);--> statement-breakpoint
CREATE INDEX `commissions_reseller` ON `commissions` (`reseller_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `commissions_status` ON `commissions` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `local_stripe_objects` (
	`id` text PRIMARY KEY NOT NULL,
	`object` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `local_stripe_objects_object` ON `local_stripe_objects` (`object`,`created_at`);--> statement-breakpoint
CREATE TABLE `resellers` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`message` text,
	`commission_bps` integer NOT NULL,
	`referral_code` text,
	`details_submitted` integer DEFAULT false NOT NULL,
	`payouts_enabled` integer DEFAULT false NOT NULL,
	`applied_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`decided_at` integer,
	`decided_by` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`referral_code`) REFERENCES `referral_codes`(`code`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `resellers_status` ON `resellers` (`status`,`applied_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `resellers_referral_code` ON `resellers` (`referral_code`);--> statement-breakpoint
CREATE TABLE `service_time_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`delta_ms` integer NOT NULL,
	`expiration_before` integer,
	`expiration_after` integer,
	`payment_id` integer,
	`invitation_id` integer,
	`actor_id` integer,
	`reason` text,
	`source_key` text NOT NULL,
	`request_id` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_time_source` ON `service_time_ledger` (`source_key`);--> statement-breakpoint
CREATE INDEX `service_time_user` ON `service_time_ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `service_time_request` ON `service_time_ledger` (`request_id`);--> statement-breakpoint
CREATE INDEX `service_time_payment` ON `service_time_ledger` (`payment_id`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL,
	`claimed_at` integer NOT NULL,
	`processed_at` integer,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `stripe_events_claimed` ON `stripe_events` (`claimed_at`);--> statement-breakpoint
ALTER TABLE `invitations` ADD `via` text DEFAULT 'sms' NOT NULL;--> statement-breakpoint
ALTER TABLE `invitations` ADD `invitee_id` integer;--> statement-breakpoint
ALTER TABLE `invitations` ADD `free_week_at` integer;--> statement-breakpoint
CREATE INDEX `invitations_inviter` ON `invitations` (`inviter_id`,`invited_at`);--> statement-breakpoint
ALTER TABLE `payments` ADD `payer_id` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `provider` text DEFAULT 'stripe' NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `payment_intent_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `refunded_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `failure_code` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `idempotency_key` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `settled_at` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `updated_at` integer;--> statement-breakpoint
CREATE INDEX `payments_status` ON `payments` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `payments_intent` ON `payments` (`payment_intent_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_payer_key` ON `payments` (`payer_id`,`idempotency_key`);--> statement-breakpoint
ALTER TABLE `plans` ADD `sort_order` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `plans` ADD `updated_at` integer;--> statement-breakpoint
CREATE INDEX `plans_app_order` ON `plans` (`app`,`active`,`sort_order`);--> statement-breakpoint
ALTER TABLE `referral_codes` ADD `owner_user_id` integer;--> statement-breakpoint
CREATE INDEX `referral_codes_owner` ON `referral_codes` (`owner_user_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `invited_by` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `expiry_reminder_for` integer;