-- checkinrpc/annul names the check-in it takes back by the scan's nonce on the given lists: found
-- through this index, not by walking every check-in of a list.
CREATE INDEX `checkins_list_nonce_idx` ON `checkins` (`list_id`,`nonce`) WHERE "checkins"."nonce" IS NOT NULL;