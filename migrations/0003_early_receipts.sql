CREATE TABLE `delivery_receipts` (
	`provider_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`received_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `delivery_receipts_received` ON `delivery_receipts` (`received_at`);