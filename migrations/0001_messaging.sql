ALTER TABLE `campaigns` ADD `request_hash` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `dispatch_cursor` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `campaigns_status` ON `campaigns` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `campaign_messages_lease` ON `campaign_messages` (`status`,`updated_at`);