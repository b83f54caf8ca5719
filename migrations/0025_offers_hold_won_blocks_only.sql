-- Offers passed on or gone live in each driver's history (the CaptureSession's own storage) since
-- 0022; the rows of those statuses left here were read only by the move into it, now gone.
DELETE FROM `offers` WHERE `status` <> 'won';--> statement-breakpoint
DROP INDEX `offers_user_status_start`;--> statement-breakpoint
DROP INDEX `offers_status_created`;--> statement-breakpoint
CREATE INDEX `offers_user_start` ON `offers` (`user_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `offers_created` ON `offers` (`created_at`);--> statement-breakpoint
ALTER TABLE `offers` DROP COLUMN `status`;--> statement-breakpoint
ALTER TABLE `offers` DROP COLUMN `reasons`;