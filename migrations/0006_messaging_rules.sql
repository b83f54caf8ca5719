CREATE TABLE `consent_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`phone` text NOT NULL,
	`kind` text NOT NULL,
	`channel` text NOT NULL,
	`basis` text,
	`source` text NOT NULL,
	`text` text,
	`text_version` text,
	`language` text,
	`user_id` integer,
	`actor_id` integer,
	`message_id` text,
	`at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consent_events_phone` ON `consent_events` (`phone`,`kind`,`basis`);--> statement-breakpoint
CREATE INDEX `consent_events_phone_at` ON `consent_events` (`phone`,`at`);--> statement-breakpoint
CREATE UNIQUE INDEX `consent_events_message` ON `consent_events` (`message_id`,`channel`);--> statement-breakpoint
ALTER TABLE `campaign_messages` ADD `deferred_until` integer;--> statement-breakpoint
CREATE INDEX `campaign_messages_phone` ON `campaign_messages` (`phone`,`updated_at`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `category` text DEFAULT 'marketing' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `purpose` text DEFAULT 'marketing' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `language` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `scheduled_at` integer;--> statement-breakpoint
ALTER TABLE `whatsapp_templates` ADD `category` text DEFAULT 'MARKETING' NOT NULL;