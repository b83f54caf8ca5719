ALTER TABLE `invitations` ADD `free_week_payment_id` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `dispute_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `dispute_status` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `disputed_cents` integer DEFAULT 0 NOT NULL;